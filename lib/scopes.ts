/** Every scope a server key may hold (the spec's table). */
export const scopes = [
  'read:listings',
  'read:team',
  'write:leads',
  'read:leads',
  'read:contacts',
  'write:contacts',
  'read:followups',
  'write:followups',
  'read:members',
  'read:leases',
  'write:leases',
  'read:maintenance',
  'write:maintenance',
  'read:pipelines',
  'write:pipelines',
] as const;

export type Scope = (typeof scopes)[number];

/**
 * What a publishable key may send: enquiries, requests to sell or manage a property (a service of kind
 * `listing_request`) and booking requests. A key lists the ones the company allows it.
 */
export const leadTypes = ['enquiry', 'listing_request', 'booking'] as const;

export type LeadType = (typeof leadTypes)[number];
