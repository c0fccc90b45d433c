import { randomBytes, randomToken } from './crypto';

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A record's public reference: a prefix and 10 Crockford base-32 characters (50 bits), e.g. `P-7K3M9Q2XAB`.
 * Unambiguous to read aloud or type from a screen; unique columns catch the rare collision. Prefixes: P person,
 * L lead, A activity, B booking, T tenancy (a lease), D deal, V viewing, J job, I inspection.
 */
export function newReference(prefix: 'P' | 'L' | 'A' | 'B' | 'T' | 'D' | 'V' | 'J' | 'I'): string {
  const bytes = randomBytes(10);
  let out = `${prefix}-`;
  for (const byte of bytes) out += crockford[byte & 31];
  return out;
}

/** An opaque id for records the spec addresses by id (`task_id`, a member's `id`). */
export function newId(prefix: 'task' | 'mem'): string {
  return `${prefix}_${randomToken(20)}`;
}
