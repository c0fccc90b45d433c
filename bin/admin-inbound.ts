/** The inbound channels' commands of the admin CLI (bin/admin.ts): receivers for WhatsApp, Property Finder, signed senders. */
export const inboundUsage = `  inbound list <company>
  inbound add <company> --kind whatsapp --secret APP_SECRET [--verify-token T]
  inbound add <company> --kind propertyfinder [--secret S] | inbound add <company> --kind signed --source NAME [--secret whsec_…]
  inbound rotate <company> <channel-id>       a new address (the old one is refused at once)
  inbound secret <company> <channel-id> [--secret S] [--verify-token T] | inbound delete <company> <channel-id>`;

export type InboundOptions = { kind?: string; source?: string; secret?: string; 'verify-token'?: string };

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Runs `inbound …`; undefined when the command is not one of them. */
export function inboundCommand(
  command: string,
  arg: (i: number, what: string) => string,
  opts: InboundOptions,
  call: Call,
): Promise<unknown> | undefined {
  const channels = () => `/companies/${encodeURIComponent(arg(2, '<company>'))}/inbound-channels`;
  const channel = () => `${channels()}/${encodeURIComponent(arg(3, '<channel-id>'))}`;
  const secrets = {
    ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
    ...(opts['verify-token'] !== undefined ? { verify_token: opts['verify-token'] } : {}),
  };
  switch (command) {
    case 'inbound list':
      return call('GET', channels());
    case 'inbound add':
      return call('POST', channels(), { kind: opts.kind, ...(opts.source ? { source: opts.source } : {}), ...secrets });
    case 'inbound rotate':
      return call('POST', `${channel()}/rotate-token`);
    case 'inbound secret':
      return call('PATCH', channel(), secrets);
    case 'inbound delete':
      return call('DELETE', channel());
    default:
      return undefined;
  }
}
