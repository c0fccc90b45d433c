import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { adminTarget, adminTokenOf } from '../lib/node/local-server';
import { exitOnBadSettings, settingsOf } from '../lib/node/settings';
import { bookingCommand, bookingUsage } from './admin-bookings';
import { calendarCommand, calendarUsage } from './admin-calendars';
import { databaseCommand, databaseUsage } from './admin-database';
import { inboundCommand, inboundUsage } from './admin-inbound';
import { feedSource, listen, listenUsage } from './admin-listen';
import { pipelineCommand, pipelineUsage } from './admin-pipelines';
import { portalCommand, portalUsage } from './admin-portals';
import { webhookCommand, webhookUsage } from './admin-webhooks';

/**
 * `npm run --silent admin -- <command>`: the operator's command line. It only calls the admin API over
 * HTTP (PGlite is single-process: the server owns the database) and prints the JSON answer.
 */
const usage = `Usage: npm run --silent admin -- <command> [options]

  token                                     print the admin token (from ADMIN_TOKEN or DATA_DIR/admin-token)
  companies list | get <id>
  companies create --name N --host H [--host H2] [--environment development|production]
                   [--currency AED] [--time-zone Asia/Dubai] [--settings JSON]
  companies update <id> [--name N] [--host H ...] [--settings JSON]
  keys list <company>
  keys create <company> --kind server --scope read:listings [--scope ...] [--name N]
  keys create <company> --kind publishable --origin https://www.example.com [--lead-type enquiry ...]
  keys rotate <company> <prefix> | keys revoke <company> <prefix>
  keys version <company> <prefix> <YYYY-MM-DD>   pin the key to an API version (its requests that send no
                                            Api-Version header are served at it; docs/api-reference.md, "API versions")
  catalogue import <company> <file.json>    the file's format: docs/formats/catalogue-import.schema.json (JSON
                                            Schema); a sample: docs/formats/catalogue-import.sample.json
  listings publish <company> <slug> | listings withdraw <company> <slug>
  team list <company> | team add <company> <json> | team replace <company> <id> <json> | team delete <company> <id>
  services put <company> <key> --kind K --name-en N [--name-ar N] | services delete <company> <key>
  members list <company>
  members add <company> --name N [--email E] [--department KEY] [--active true|false]
  members update <company> <member-id> [--name N] [--email E] [--department KEY] [--active true|false]
                 (--email "" or --department "" clears it; --active false deactivates)
  departments put <company> <key> --name-en N [--name-ar N] | departments delete <company> <key>
  leads draft-listing <company> <reference>  turn a listing request into a draft listing
  audit <company> [--action key.created]
  tax-rates list | tax-rates add <json> | tax-rates close <rate-id> <last-day YYYY-MM-DD> | tax-rates delete <rate-id>
                                            the dated VAT rates (docs/api-reference.md, "Tax")
  einvoicing set <company> --url U --secret whsec_… | einvoicing remove <company>
                                            the company's Accredited Service Provider (e-invoice hand-off)
${webhookUsage}
${listenUsage}
  events trigger <type> [<company>]         make a test event of the catalogue happen in a development company (the
                                            company on localhost unless named): the records whose operations emit
                                            it, each event marked with data.trigger_id (docs/api-reference.md)
${bookingUsage}
${calendarUsage}
${pipelineUsage}
${portalUsage}
${inboundUsage}
${databaseUsage}

With no settings it talks to the server \`npm start\` runs here (its address is in DATA_DIR/server.json) with the
admin token that server generated (DATA_DIR/admin-token). Environment: DATA_DIR (default ./.data), ADMIN_URL and
ADMIN_TOKEN (a server elsewhere, e.g. a Worker), PORT (when the server's record is missing).
A key's or a webhook subscription's \`secret\` is printed once, when created or rotated: store it then.`;

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    host: { type: 'string', multiple: true },
    environment: { type: 'string' },
    currency: { type: 'string' },
    'time-zone': { type: 'string' },
    settings: { type: 'string' },
    kind: { type: 'string' },
    scope: { type: 'string', multiple: true },
    origin: { type: 'string', multiple: true },
    'lead-type': { type: 'string', multiple: true },
    'name-en': { type: 'string' },
    'name-ar': { type: 'string' },
    action: { type: 'string' },
    url: { type: 'string' },
    channel: { type: 'string' },
    interval: { type: 'string' },
    'event-type': { type: 'string', multiple: true },
    description: { type: 'string' },
    enable: { type: 'boolean' },
    blocked: { type: 'boolean' },
    disable: { type: 'boolean' },
    status: { type: 'string' },
    type: { type: 'string' },
    email: { type: 'string' },
    department: { type: 'string' },
    active: { type: 'string' },
    listing: { type: 'string' },
    reason: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    note: { type: 'string' },
    secret: { type: 'string' },
    source: { type: 'string' },
    'verify-token': { type: 'string' },
    purpose: { type: 'string' },
    position: { type: 'string' },
    probability: { type: 'string' },
    owner: { type: 'string' },
    limit: { type: 'string' },
    'forward-to': { type: 'string' },
    key: { type: 'string' },
    after: { type: 'string' },
    count: { type: 'string' },
    since: { type: 'string' },
    before: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

exitOnBadSettings(process.env, settingsOf.admin);
const adminToken = () => adminTokenOf(process.env);

/** The admin API's base URL (ADMIN_URL, the running server's record, or PORT); an error names the folder. */
async function adminBase(): Promise<string> {
  const target = await adminTarget(process.env);
  if ('error' in target) throw new Error(target.error);
  return target.url;
}

function parseJson(text: string | undefined, what: string): unknown {
  if (text === undefined) throw new Error(`Missing ${what}.\n\n${usage}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON.`);
  }
}

/** One admin API request; a server that cannot be reached is named with its address. */
async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const base = await adminBase();
  return fetch(`${base}/admin/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${await adminToken()}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((error: Error) => {
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    throw new Error(`Cannot reach the admin API at ${base} (${cause}): is the server running?`);
  });
}

/** A JSON answer: returned when it succeeded, printed (exit 1) when it is a problem. */
async function answerOf(res: Response): Promise<unknown> {
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : { status: res.status };
  if (!res.ok) {
    console.log(JSON.stringify(parsed, null, 2));
    process.exit(1);
  }
  return parsed;
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  return answerOf(await send(method, path, body));
}

/** The development company on localhost (`npm start`'s demo): where `events trigger` works without a company named. */
async function localCompany(): Promise<string> {
  const { results } = (await call('GET', '/companies')) as {
    results: Array<{ id: string; hosts: string[]; environment: string }>;
  };
  const local = results.find((c) => c.environment === 'development' && c.hosts.includes('localhost'));
  if (!local) throw new Error('No development company on localhost: name the company (events trigger <type> <company>).');
  return local.id;
}

/**
 * A catalogue import with progress: the server streams a JSON line per batch of listings (shown on stderr), then
 * the counts (returned) or the problem (printed, exit 1). A server that answers plain JSON (a Worker) is read as
 * `call` reads it.
 */
async function importWithProgress(path: string, body: unknown): Promise<unknown> {
  const res = await send('POST', path, body, { Accept: 'application/x-ndjson' });
  if (!res.ok || !res.headers.get('content-type')?.startsWith('application/x-ndjson') || !res.body) {
    return answerOf(res);
  }
  let pending = '';
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    pending += decoder.decode(read.value, { stream: true });
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      if (line.progress) {
        const { batch, batches, listings } = line.progress;
        console.error(`batch ${batch}/${batches}: ${listings.done}/${listings.total} listings`);
      } else if (line.error) {
        console.log(JSON.stringify(line.error, null, 2));
        process.exit(1);
      } else if (line.result) {
        return line.result;
      }
    }
  }
  throw new Error('The import stream ended without a result: the connection was cut; nothing is known to be imported.');
}

/** `--active true|false`. */
function flag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new Error(`${name} takes true or false.`);
  return value === 'true';
}

/** The member fields given on the command line; an empty --email or --department clears it. */
function memberFields() {
  const active = flag(opts.active, '--active');
  return {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.email !== undefined ? { email: opts.email || null } : {}),
    ...(opts.department !== undefined ? { department: opts.department || null } : {}),
    ...(active !== undefined ? { active } : {}),
  };
}

const arg = (i: number, what: string) => {
  const value = positionals[i];
  if (value === undefined) throw new Error(`Missing ${what}.\n\n${usage}`);
  return value;
};

async function run(): Promise<unknown> {
  const [group, action] = positionals;
  const company = () => encodeURIComponent(arg(2, '<company>'));
  switch (`${group} ${action ?? ''}`.trim()) {
    case 'token':
      return { admin_token: await adminToken() };
    case 'companies list':
      return call('GET', '/companies');
    case 'companies get':
      return call('GET', `/companies/${company()}`);
    case 'companies create':
      return call('POST', '/companies', {
        name: opts.name,
        hosts: opts.host,
        environment: opts.environment ?? 'development',
        currency: opts.currency ?? 'AED',
        time_zone: opts['time-zone'] ?? 'Asia/Dubai',
        ...(opts.settings ? { settings: parseJson(opts.settings, '--settings') } : {}),
      });
    case 'companies update':
      return call('PATCH', `/companies/${company()}`, {
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.host ? { hosts: opts.host } : {}),
        ...(opts.settings ? { settings: parseJson(opts.settings, '--settings') } : {}),
      });
    case 'keys list':
      return call('GET', `/companies/${company()}/keys`);
    case 'keys create':
      return call('POST', `/companies/${company()}/keys`, {
        kind: opts.kind ?? 'server',
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.scope ? { scopes: opts.scope } : {}),
        ...(opts.origin ? { origins: opts.origin } : {}),
        ...(opts['lead-type'] ? { lead_types: opts['lead-type'] } : {}),
      });
    case 'keys rotate':
    case 'keys revoke':
      return call('POST', `/companies/${company()}/keys/${encodeURIComponent(arg(3, '<prefix>'))}/${action}`);
    case 'keys version':
      return call('PATCH', `/companies/${company()}/keys/${encodeURIComponent(arg(3, '<prefix>'))}`, {
        api_version: arg(4, '<YYYY-MM-DD>'),
      });
    case 'catalogue import':
      return importWithProgress(
        `/companies/${company()}/catalogue/import`,
        parseJson(await readFile(arg(3, '<file>'), 'utf8'), 'the file'),
      );
    case 'listings publish':
    case 'listings withdraw':
      return call('POST', `/companies/${company()}/listings/${encodeURIComponent(arg(3, '<slug>'))}/${action}`);
    case 'team list':
      return call('GET', `/companies/${company()}/team`);
    case 'team add':
      return call('POST', `/companies/${company()}/team`, parseJson(positionals[3], '<json>'));
    case 'team replace':
      return call(
        'PUT',
        `/companies/${company()}/team/${encodeURIComponent(arg(3, '<id>'))}`,
        parseJson(positionals[4], '<json>'),
      );
    case 'team delete':
      return call('DELETE', `/companies/${company()}/team/${encodeURIComponent(arg(3, '<id>'))}`);
    case 'services put':
      return call('PUT', `/companies/${company()}/services/${encodeURIComponent(arg(3, '<key>'))}`, {
        kind: opts.kind,
        name: { en: opts['name-en'], ...(opts['name-ar'] ? { ar: opts['name-ar'] } : {}) },
      });
    case 'services delete':
      return call('DELETE', `/companies/${company()}/services/${encodeURIComponent(arg(3, '<key>'))}`);
    case 'members list':
      return call('GET', `/companies/${company()}/members`);
    case 'members add':
      return call('POST', `/companies/${company()}/members`, memberFields());
    case 'members update':
      return call('PATCH', `/companies/${company()}/members/${encodeURIComponent(arg(3, '<member-id>'))}`, memberFields());
    case 'departments put':
      return call('PUT', `/companies/${company()}/departments/${encodeURIComponent(arg(3, '<key>'))}`, {
        name: { en: opts['name-en'], ...(opts['name-ar'] ? { ar: opts['name-ar'] } : {}) },
      });
    case 'departments delete':
      return call('DELETE', `/companies/${company()}/departments/${encodeURIComponent(arg(3, '<key>'))}`);
    case 'tax-rates list':
      return call('GET', '/tax-rates');
    case 'tax-rates add':
      return call('POST', '/tax-rates', parseJson(positionals[2], '<json>'));
    case 'tax-rates close':
      return call('PATCH', `/tax-rates/${encodeURIComponent(arg(2, '<rate-id>'))}`, { valid_to: arg(3, '<last-day>') });
    case 'tax-rates delete':
      return call('DELETE', `/tax-rates/${encodeURIComponent(arg(2, '<rate-id>'))}`);
    case 'einvoicing set':
      return call('PUT', `/companies/${company()}/einvoicing`, { url: opts.url, secret: opts.secret });
    case 'einvoicing remove':
      return call('DELETE', `/companies/${company()}/einvoicing`);
    case 'outbound status':
      return call('GET', '/outbound');
    case 'outbound resume':
      return call('POST', '/outbound/resume');
    case 'events listen': {
      const admin =
        opts.key === undefined ? { base: await adminBase(), token: await adminToken(), company: arg(2, '<company>') } : undefined;
      return listen(opts, feedSource(opts, admin), (line) => console.log(line));
    }
    case 'events trigger':
      return call('POST', `/companies/${positionals[3] ?? (await localCompany())}/events/trigger`, { type: arg(2, '<type>') });
    case 'leads draft-listing':
      return call('POST', `/companies/${company()}/leads/${encodeURIComponent(arg(3, '<reference>'))}/draft-listing`);
    default: {
      const database = databaseCommand(group ?? '', arg, process.env);
      if (database) return database;
      const webhooks = webhookCommand(`${group} ${action ?? ''}`.trim(), arg, opts, call);
      if (webhooks) return webhooks;
      const bookings = bookingCommand(`${group} ${action ?? ''}`.trim(), arg, opts, call);
      if (bookings) return bookings;
      const calendars = calendarCommand(`${group} ${action ?? ''}`.trim(), arg, opts, call);
      if (calendars) return calendars;
      const pipelines = pipelineCommand(`${group} ${action ?? ''}`.trim(), arg, opts, call);
      if (pipelines) return pipelines;
      const portals = portalCommand(`${group} ${action ?? ''}`.trim(), arg, opts, call);
      if (portals) return portals;
      const inbound = inboundCommand(`${group} ${action ?? ''}`.trim(), arg, opts, call);
      if (inbound) return inbound;
      if (group === 'audit') {
        const company = encodeURIComponent(arg(1, '<company>'));
        return call(
          'GET',
          `/companies/${company}/audit-log?page_size=100${opts.action ? `&action=${encodeURIComponent(opts.action)}` : ''}`,
        );
      }
      throw new Error(usage);
    }
  }
}

if (opts.help || positionals.length === 0) {
  console.log(usage);
} else {
  try {
    const result = await run();
    console.log(JSON.stringify(result, null, 2));
    if (typeof (result as { secret?: unknown } | null)?.secret === 'string') {
      // On stderr, so stdout stays the JSON answer for scripts.
      console.error(
        '\nNote: `secret` is shown only this once and cannot be read again: store it now (a rotation issues a new one).',
      );
    }
    // pg_dump's WebAssembly runtime (the export) leaves a handle open that would keep the process waiting: it is done.
    if (positionals[0] === 'export') process.exit(0);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
}
