import { readFile } from 'node:fs/promises';

/** The booking commands of the admin CLI (bin/admin.ts): requests, staff's steps, terms, blocks, spam check. */
export const bookingUsage = `  bookings list <company> [--status held|confirmed|paid|cancelled] [--listing SLUG]
  bookings get <company> <reference>
  bookings confirm|mark-paid|cancel <company> <reference>
  terms put <company> <slug> <file.json>     replace a holiday home's booking terms and seasons
  blocks list <company> <slug> | blocks delete <company> <slug> <block-id>
  blocks add <company> <slug> --reason owner|maintenance --from YYYY-MM-DD --to YYYY-MM-DD [--note N]
  spam-check set <company> --secret S | spam-check remove <company>
  upkeep get <company> <slug> | upkeep set <company> <slug> [--owner P-…] [--limit 2000.00]
                                             a home's maintenance owner and approval limit ("" clears)`;

export type BookingOptions = {
  status?: string;
  listing?: string;
  reason?: string;
  from?: string;
  to?: string;
  note?: string;
  secret?: string;
  owner?: string;
  limit?: string;
};

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Runs `bookings …`, `terms …`, `blocks …` or `spam-check …`; undefined when the command is not one of them. */
export function bookingCommand(
  command: string,
  arg: (i: number, what: string) => string,
  opts: BookingOptions,
  call: Call,
): Promise<unknown> | undefined {
  const company = () => `/companies/${encodeURIComponent(arg(2, '<company>'))}`;
  const booking = () => `${company()}/bookings/${encodeURIComponent(arg(3, '<reference>'))}`;
  const listing = () => `${company()}/listings/${encodeURIComponent(arg(3, '<slug>'))}`;
  switch (command) {
    case 'bookings list': {
      const query = new URLSearchParams({ page_size: '100' });
      if (opts.status) query.set('status', opts.status);
      if (opts.listing) query.set('listing', opts.listing);
      return call('GET', `${company()}/bookings?${query}`);
    }
    case 'bookings get':
      return call('GET', booking());
    case 'bookings confirm':
    case 'bookings mark-paid':
    case 'bookings cancel':
      return call('POST', `${booking()}/${command.split(' ')[1]}`);
    case 'terms put':
      return readFile(arg(4, '<file.json>'), 'utf8').then((text) => call('PUT', `${listing()}/booking-terms`, JSON.parse(text)));
    case 'blocks list':
      return call('GET', `${listing()}/blocks`);
    case 'blocks add':
      return call('POST', `${listing()}/blocks`, {
        reason: opts.reason,
        starts_on: opts.from,
        ends_on: opts.to,
        ...(opts.note ? { note: opts.note } : {}),
      });
    case 'blocks delete':
      return call('DELETE', `${listing()}/blocks/${encodeURIComponent(arg(4, '<block-id>'))}`);
    case 'spam-check set':
      return call('PUT', `${company()}/spam-check`, { secret: opts.secret });
    case 'spam-check remove':
      return call('PUT', `${company()}/spam-check`, { secret: null });
    case 'upkeep get':
      return call('GET', `${listing()}/maintenance`);
    case 'upkeep set':
      return call('PUT', `${listing()}/maintenance`, {
        ...(opts.owner !== undefined ? { owner: opts.owner || null } : {}),
        ...(opts.limit !== undefined ? { approval_limit: opts.limit || null } : {}),
      });
    default:
      return undefined;
  }
}
