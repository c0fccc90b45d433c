import { iso } from '../../lib/dates';
import type { InboundChannelRow } from '../../schema/forms/db';
import type { MadeChannel } from './inbound-channels';

/** A channel's receiver path: `/api/v1/inbound/{token}/{kind}`. */
export const inboundPath = (token: string, kind: string) => `/api/v1/inbound/${token}/${kind}`;

/** A channel as the admin API shows it: its address with the token's first characters only. */
export function channelView(channel: InboundChannelRow, origin: string) {
  return {
    id: channel.id,
    kind: channel.kind,
    source: channel.source,
    url: `${origin}${inboundPath(`${channel.token_hint}…`, channel.kind)}`,
    failures: {
      count: channel.failures,
      since: iso(channel.failures_since),
      last_audited_at: iso(channel.failure_audited_at),
    },
    token_rotated_at: iso(channel.token_rotated_at),
    created_at: iso(channel.created_at) as string,
    updated_at: iso(channel.updated_at) as string,
  };
}

/** A channel just made or given a new token: its whole address, and the secrets generated, shown this once. */
export function madeChannelView(made: MadeChannel, origin: string) {
  return {
    ...channelView(made.channel, origin),
    url: `${origin}${inboundPath(made.token, made.channel.kind)}`,
    secret: made.secret,
    verify_token: made.verifyToken,
  };
}
