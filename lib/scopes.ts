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
