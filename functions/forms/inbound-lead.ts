import { type DetailValue, detailsProblems } from '../../lib/details';
import { redactCardNumbers } from '../../schema/common/card-numbers';
import type { LeadFields, LeadOrigin } from './lead-record';

/**
 * One enquiry (or conversation message) a source's delivery holds, read from its verified payload: the lead's fields
 * (free texts already without card numbers), its details before encryption, and where it comes from.
 */
export type InboundLead = {
  fields: Omit<LeadFields, 'detailsJwe' | 'consent'>;
  details?: Record<string, DetailValue>;
  origin: LeadOrigin;
};

/** A source's delivery read: its enquiries, what was acknowledged and not kept, and the details keys dropped. */
export type InboundParsed = { leads: InboundLead[]; ignored: number; dropped: string[] };

/**
 * A free text of a source, kept: without card numbers (each replaced, lib: schema/common/card-numbers.ts), since an
 * inbound message cannot be refused as a form's is (the source would only send it again). Empty: undefined.
 */
export function keptText(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? redactCardNumbers(trimmed).text : undefined;
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
