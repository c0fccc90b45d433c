import { type DetailValue, detailsProblems } from '../../lib/details';
import type { LeadFields, LeadOrigin } from './lead-record';

/**
 * One enquiry (or conversation message) a source's delivery holds, read from its verified payload: the lead's fields,
 * its details before encryption, and where it comes from. Its free texts are kept without card numbers by the lead
 * record (functions/forms/lead-record.ts), whoever sends them.
 */
export type InboundLead = {
  fields: Omit<LeadFields, 'detailsJwe' | 'consent'>;
  details?: Record<string, DetailValue>;
  origin: LeadOrigin;
};

/**
 * An item of a delivery that cannot be kept (a message not in the source's shape, a sender who cannot be reached): its
 * id (the source's, else one made from its content, so a retry is recognised), why, and when the source says it was.
 */
export type FailedItem = { id: string; code: string; path: string | null; occurredAt: Date };

/**
 * A source's delivery read: its enquiries, the items that cannot be kept, what was acknowledged and not kept, and the
 * fields dropped from enquiries that are.
 */
export type InboundParsed = { leads: InboundLead[]; failed: FailedItem[]; ignored: number; dropped: string[] };

/** A free text of a source, trimmed; empty: undefined. */
export function keptText(text: string | undefined): string | undefined {
  return text?.trim() || undefined;
}

/**
 * An id for an item that has none a source's id can be (missing, empty or over 200 characters): `unread:` and a hash
 * of its content (cyrb53, 53 bits), the same on every retry of the delivery. Two such items with one hash are both
 * failures; the second is then counted and not audited again.
 */
export function contentId(item: unknown): string {
  const text = JSON.stringify(item) ?? '';
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `unread:${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}

/** The source's id of an item when it can be one (1 to 200 characters), else {@link contentId}. */
export function itemId(id: unknown, item: unknown): string {
  return typeof id === 'string' && id.length >= 1 && id.length <= 200 ? id : contentId(item);
}

/**
 * A source's details as a form's would be kept: a key a form would be refused for (identity documents, card or bank
 * details, passwords, contact details, card numbers in a value) is dropped instead, and named in `dropped`.
 */
export function keptDetails(details: Record<string, DetailValue> | undefined, dropped: string[]): Record<string, DetailValue> {
  if (!details) return {};
  const refused = new Set(detailsProblems(details).map((problem) => problem.path.slice('details.'.length)));
  for (const key of refused) dropped.push(`details.${key}`);
  return Object.fromEntries(Object.entries(details).filter(([key]) => !refused.has(key)));
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A verified payload with every text made storable: NUL removed and each lone surrogate replaced by U+FFFD (a form
 * refuses such text with 400; a source's message is kept, since refusing it would only have it sent again).
 */
export function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '').replace(loneSurrogate, '\uFFFD');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storable(key) as string, storable(item)]));
  }
  return value;
}

const firstInstant = Date.UTC(1900, 0, 1);
const endInstant = Date.UTC(3000, 0, 1);

/** The time a source gives, when it is one in the years 1900 to 2999 (as the API's instants); else `now`. */
export function sourceTime(at: Date, now: Date): Date {
  const ms = at.getTime();
  return ms >= firstInstant && ms < endInstant ? at : now;
}
