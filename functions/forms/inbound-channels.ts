import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { isLocalHost } from '../../lib/addresses';
import { auditCte } from '../../lib/audit';
import { randomToken, sha256 } from '../../lib/crypto';
import { type Keyring, sealSecret } from '../../lib/crypto-jwe';
import { type Db, type Executor, isForeignKeyViolation, isUniqueViolation } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { newSigningSecret } from '../../lib/webhooks/secrets';
import type { InboundChannelRow, InboundKind } from '../../schema/forms/db';
import type { InboundChannelInputValue } from '../../schema/forms/inbound';

/**
 * A company's inbound channels, for the operator (admin API and `bin/admin-inbound.ts`): one per source, each at a
 * secret path token (only its SHA-256 kept; shown once, at creation and rotation), with the source's secret sealed
 * (lib/crypto-jwe.ts sealSecret, the channel's id in the authenticated header). Every change is audited.
 */

/** A new path token: 43 base62 characters (about 256 bits). */
const newToken = () => randomToken(43);
const hintOf = (token: string) => token.slice(0, 6);

/** The source of a channel's leads: fixed for WhatsApp and Property Finder, named for a signed one. */
function sourceOf(input: InboundChannelInputValue): string {
  if (input.kind !== 'signed') return input.kind;
  if (!input.source) throw invalid('source', 'A signed channel needs the name its leads carry as `source` (e.g. bayut).');
  return input.source;
}

function invalid(path: string, message: string): ApiError {
  return new ApiError('invalid_request', 'The inbound channel is invalid.', { errors: [{ path, code: 'custom', message }] });
}

/** The channel's secret as given (checked for its kind) or generated: `generated` when it must be shown once. */
export function channelSecret(kind: InboundKind, given: string | undefined): { secret: string; generated: boolean } {
  switch (kind) {
    case 'whatsapp':
      if (!given) throw invalid('secret', 'The Meta app secret (App settings → Basic) is required: Meta signs with it.');
      return { secret: given, generated: false };
    case 'propertyfinder':
      if (given && given.length > 32)
        throw invalid('secret', 'Property Finder takes a subscription secret of at most 32 characters.');
      return given ? { secret: given, generated: false } : { secret: randomToken(32), generated: true };
    case 'signed':
      if (!given) return { secret: newSigningSecret(), generated: true };
      try {
        new Webhook(given);
      } catch {
        throw invalid('secret', 'A Standard Webhooks secret: `whsec_` and the base64 of at least 24 random bytes.');
      }
      if (!given.startsWith('whsec_')) throw invalid('secret', 'A Standard Webhooks secret starts with `whsec_`.');
      return { secret: given, generated: false };
  }
}

/** The audit row of a channel's change (the CTE `audited` over `changed`), with the channel's source. */
const audit = (action: string, details: Record<string, unknown>) =>
  auditCte('audited', 'changed', { actor: 'admin', action, subject: 'id', details, columns: ['source'] });

export type MadeChannel = { channel: InboundChannelRow; token: string; secret: string | null; verifyToken: string | null };

/** A channel as a write's statement returns it: with the company's hosts, for the address it is shown on. */
export type WrittenChannel = InboundChannelRow & { hosts: string[] };

/** The final select of a channel's write: the changed row with its company's hosts (no read after the write). */
const changedWithHosts = sql`select changed.*, array(select h.host from company_hosts h where h.company_id = changed.company_id
  order by h.host) as hosts from changed`;

/** Adds a channel and its audit row in one statement; a second channel of one source is refused (409). */
export async function createChannel(
  db: Db,
  companyId: string,
  input: InboundChannelInputValue,
  keyring: Keyring | undefined,
): Promise<MadeChannel & { channel: WrittenChannel }> {
  const id = crypto.randomUUID();
  const source = sourceOf(input);
  const { secret, generated } = channelSecret(input.kind, input.secret);
  if (input.kind !== 'whatsapp' && input.verify_token)
    throw invalid('verify_token', 'Only a WhatsApp channel has a verify token.');
  const verifyToken = input.kind === 'whatsapp' ? (input.verify_token ?? randomToken(32)) : null;
  const token = newToken();
  const values = {
    id,
    company_id: companyId,
    kind: input.kind,
    source,
    token_hash: await sha256(token),
    token_hint: hintOf(token),
    secret_jwe: await sealSecret(keyring, secret, id),
    verify_token_jwe: verifyToken === null ? null : await sealSecret(keyring, verifyToken, id),
  };
  try {
    const { rows } = await sql<WrittenChannel>`
      with changed as (${db.insertInto('inbound_channels').values(values).returningAll()}),
      ${audit('inbound_channel.created', { kind: input.kind })}
      ${changedWithHosts}`.execute(db);
    const channel = rows[0];
    if (!channel) throw new Error('the channel was not stored');
    return { channel, token, secret: generated ? secret : null, verifyToken: input.verify_token ? null : verifyToken };
  } catch (error) {
    if (isUniqueViolation(error)) throw new ApiError('conflict', `The company already has an inbound channel for ${source}.`);
    // The company named in the path does not exist (its channel's foreign key): the same 404 as every admin route.
    if (isForeignKeyViolation(error)) throw notFound(`The company ${companyId}`);
    throw error;
  }
}

/** A change of one channel with its audit row, in one statement (404 when the company has no such channel). */
async function changeChannel(
  db: Db,
  companyId: string,
  id: string,
  set: Record<string, unknown>,
  action: string,
): Promise<WrittenChannel> {
  const { rows } = await sql<WrittenChannel>`
    with changed as (${db.updateTable('inbound_channels').set(set).where('company_id', '=', companyId).where('id', '=', id).returningAll()}),
    ${audit(action, {})}
    ${changedWithHosts}`.execute(db);
  if (!rows[0]) throw notFound(`The inbound channel ${id}`);
  return rows[0];
}

/** A new path token (shown once): the old one is refused from now on. */
export async function rotateChannelToken(
  db: Db,
  companyId: string,
  id: string,
  now: Date,
): Promise<MadeChannel & { channel: WrittenChannel }> {
  const token = newToken();
  const channel = await changeChannel(
    db,
    companyId,
    id,
    { token_hash: await sha256(token), token_hint: hintOf(token), token_rotated_at: now },
    'inbound_channel.token_rotated',
  );
  return { channel, token, secret: null, verifyToken: null };
}

/** A new secret or verify token given by the operator (Meta's app secret was reset, a sender's secret rotated). */
export async function changeChannelSecrets(
  db: Db,
  companyId: string,
  id: string,
  patch: { secret?: string; verify_token?: string },
  keyring: Keyring | undefined,
): Promise<WrittenChannel> {
  const current = await channelOf(db, companyId, id);
  const set: Record<string, string> = {};
  if (patch.secret !== undefined)
    set.secret_jwe = await sealSecret(keyring, channelSecret(current.kind, patch.secret).secret, id);
  if (patch.verify_token !== undefined) {
    if (current.kind !== 'whatsapp') throw invalid('verify_token', 'Only a WhatsApp channel has a verify token.');
    set.verify_token_jwe = await sealSecret(keyring, patch.verify_token, id);
  }
  if (Object.keys(set).length === 0) return { ...current, hosts: await hostsOf(db, companyId) };
  return changeChannel(db, companyId, id, set, 'inbound_channel.secret_changed');
}

/** Removes a channel: its address answers 404 from now on; its leads stay. */
export async function deleteChannel(db: Db, companyId: string, id: string): Promise<void> {
  const { rows } = await sql`
    with changed as (${db.deleteFrom('inbound_channels').where('company_id', '=', companyId).where('id', '=', id).returningAll()}),
    ${audit('inbound_channel.deleted', {})}
    select id from changed`.execute(db);
  if (rows.length === 0) throw notFound(`The inbound channel ${id}`);
}

/** One channel of the company (404 otherwise). */
export async function channelOf(db: Executor, companyId: string, id: string): Promise<InboundChannelRow> {
  const channel = await db
    .selectFrom('inbound_channels')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!channel) throw notFound(`The inbound channel ${id}`);
  return channel;
}

/** The company’s channels, oldest first. */
export async function listChannels(db: Executor, companyId: string): Promise<InboundChannelRow[]> {
  return db
    .selectFrom('inbound_channels')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The origin a channel's address is shown on: the company's first host that is not local (https), else its first
 * host (http: a development workspace on this machine).
 */
export async function channelOrigin(db: Executor, companyId: string): Promise<string> {
  return originOf(await hostsOf(db, companyId));
}

async function hostsOf(db: Executor, companyId: string): Promise<string[]> {
  const rows = await db.selectFrom('company_hosts').select('host').where('company_id', '=', companyId).orderBy('host').execute();
  return rows.map((row) => row.host);
}

/** {@link channelOrigin} of hosts already read (a write's statement returns them). */
export function originOf(hosts: readonly string[]): string {
  const public_ = hosts.find((host) => !isLocalHost(host));
  if (public_) return `https://${public_}`;
  return hosts[0] ? `http://${hosts[0]}` : '';
}
