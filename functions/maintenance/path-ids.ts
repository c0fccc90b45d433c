import { notFound } from '../../lib/errors';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from a path (`contractor_id`, `charge_id`): a malformed one names no record, so it is a 404 like an unknown one. */
export function knownId(value: string, noun: string): string {
  if (!uuid.test(value)) throw notFound(`The ${noun} ${value}`);
  return value;
}
