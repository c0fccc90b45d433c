/** The webhook commands of the admin CLI (bin/admin.ts): subscriptions, events, deliveries, replays, pings. */
export const webhookUsage = `  webhooks list <company> | webhooks get <company> <subscription>
  webhooks create <company> --url U [--event-type lead.created ...] [--description D] [--disable]
  webhooks update <company> <subscription> [--url U] [--event-type T ...] [--description D] [--enable | --disable]
  webhooks delete <company> <subscription> | webhooks rotate-secret <company> <subscription>
  webhooks ping <company> <subscription>          send a test "ping" event to that subscription
  webhooks deliveries <company> <subscription> [--status pending|succeeded|failed] [--since T] [--before T]
                                            made at or after --since, before --before (ISO 8601 instants)
  webhooks recover <company> <subscription> --since T
                                            send again every failed delivery made since T (500 at a time:
                                            call again while the answer says "more": true)
  events list <company> [--type lead.created] | events deliveries <company> <event>
  events replay <company> <event> <subscription>`;

export type WebhookOptions = {
  url?: string;
  'event-type'?: string[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
  status?: string;
  type?: string;
  since?: string;
  before?: string;
};

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Runs `webhooks …` or `events …`; undefined when the command is not one of them. */
export function webhookCommand(
  command: string,
  arg: (i: number, what: string) => string,
  opts: WebhookOptions,
  call: Call,
): Promise<unknown> | undefined {
  const company = () => encodeURIComponent(arg(2, '<company>'));
  const subscriptions = () => `/companies/${company()}/webhook-subscriptions`;
  const subscription = () => `${subscriptions()}/${encodeURIComponent(arg(3, '<subscription>'))}`;
  const event = () => `/companies/${company()}/events/${encodeURIComponent(arg(3, '<event>'))}`;
  const enabled = opts.enable ? { enabled: true } : opts.disable ? { enabled: false } : {};
  switch (command) {
    case 'webhooks list':
      return call('GET', subscriptions());
    case 'webhooks get':
      return call('GET', subscription());
    case 'webhooks create':
      return call('POST', subscriptions(), {
        url: opts.url,
        ...(opts['event-type'] ? { event_types: opts['event-type'] } : {}),
        ...(opts.description ? { description: opts.description } : {}),
        ...enabled,
      });
    case 'webhooks update':
      return call('PATCH', subscription(), {
        ...(opts.url ? { url: opts.url } : {}),
        ...(opts['event-type'] ? { event_types: opts['event-type'] } : {}),
        ...(opts.description !== undefined ? { description: opts.description } : {}),
        ...enabled,
      });
    case 'webhooks delete':
      return call('DELETE', subscription());
    case 'webhooks rotate-secret':
      return call('POST', `${subscription()}/rotate-secret`);
    case 'webhooks ping':
      return call('POST', `${subscription()}/ping`);
    case 'webhooks deliveries': {
      const query = new URLSearchParams({ page_size: '100' });
      if (opts.status) query.set('status', opts.status);
      if (opts.since) query.set('created_since', opts.since);
      if (opts.before) query.set('created_before', opts.before);
      return call('GET', `${subscription()}/deliveries?${query}`);
    }
    case 'webhooks recover':
      // Without --since the API's 400 names the field.
      return call('POST', `${subscription()}/recover`, opts.since === undefined ? {} : { since: opts.since });
    case 'events list':
      return call(
        'GET',
        `/companies/${company()}/events?page_size=100${opts.type ? `&type=${encodeURIComponent(opts.type)}` : ''}`,
      );
    case 'events deliveries':
      return call('GET', `${event()}/deliveries`);
    case 'events replay':
      return call('POST', `${event()}/replay`, { subscription_id: arg(4, '<subscription>') });
    default:
      return undefined;
  }
}
