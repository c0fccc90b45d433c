/** Every scope a server key may hold (the spec's table). */
export const scopes = [
  'read:listings',
  'write:listings',
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
  'read:invoices',
  'read:events',
  'read:audit',
  'read:webhooks',
  'write:webhooks',
  'read:bookings',
  'write:bookings',
] as const;

export type Scope = (typeof scopes)[number];

/**
 * What a publishable key may send: enquiries, requests to sell or manage a property (a service of kind
 * `listing_request`), booking requests and saved searches. A key lists the ones the company allows it.
 */
export const leadTypes = ['enquiry', 'listing_request', 'booking', 'saved_search'] as const;

export type LeadType = (typeof leadTypes)[number];

/**
 * Who may call a route. Every route declares one; the declaration drives the check below, the OpenAPI
 * document (security and `x-access`) and the shared authorisation tests.
 */
export type Access =
  /** No key needed; a server key, when sent, must hold one of `scopes` and is then limited per key. */
  | { kind: 'public'; scopes: Scope[] }
  /** A server key holding one of `scopes`. Publishable keys are refused. */
  | { kind: 'server'; scopes: Scope[] }
  /**
   * A visitor's form: a publishable key (`X-Api-Key`) sent from one of the key's origins, or, where `scopes`
   * is not empty, a server key holding one of them (a company's server posting on its own behalf).
   */
  | { kind: 'form'; scopes: Scope[] }
  /** The platform operator's admin token (the /admin/v1 API). */
  | { kind: 'admin' }
  /** A QStash callback (/internal/v1): the Upstash-Signature of the request, checked with the signing keys. */
  | { kind: 'qstash' }
  /**
   * An inbound channel's receiver (/inbound/{token}/…): no key; the path's secret token names the channel and the
   * source's signature of the raw body (or WhatsApp's verify token) is checked by the receiver itself.
   */
  | { kind: 'inbound' }
  /**
   * A page for a person (HTML, outside /api/v1) on the company's host at a secret token in its path, such as the
   * guest's stay page and the owner's statement (lib/pages.ts): no key; the page checks the host and the token itself
   * and answers an unknown one with its own 404 page. Declared like every route, left out of the OpenAPI documents.
   */
  | { kind: 'page' };
