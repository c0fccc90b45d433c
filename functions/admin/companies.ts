import { sealEinvoiceSecret } from '../../lib/einvoice/handoff';
import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { findCompany } from '../../lib/admin-route';
import { auditCte } from '../../lib/audit';
import type { Config } from '../../lib/config';
import { keyringOf } from '../../lib/crypto-jwe';
import { type Db, type Executor, isUniqueViolation } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { isKnownCurrency } from '../../lib/money';
import { sealSpamCheckSecret } from '../../lib/spam-check';
import { recordClosings } from '../../lib/statement-months';
import { recordClosedDirham } from '../../lib/tourism-dirham';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import type { CreateCompanyInput, UpdateCompanyInput } from '../../schema/platform/admin';
import type { Company } from '../../schema/platform/db';
import { presentCompany, presentStoredCompany } from './companies.present';
import { assertDeliverable } from '../../lib/webhooks/subscriptions';
import { stamp } from '../../lib/clock';

/**
 * A company's writes are one statement each (docs/invariants.md, "Writes"): the row, its hosts and its audit row. A
 * host is one company's (the primary key of `company_hosts`): a host another company holds fails the statement, and is
 * then named in the 409.
 */
type CompanyWithHosts = Company & { hosts: string[] };

/** The 409 naming the hosts of `hosts` another company holds (read after a statement failed on one of them). */
async function hostsTaken(db: Executor, companyId: string | null, hosts: string[]): Promise<ApiError> {
  const taken = await db
    .selectFrom('company_hosts')
    .select('host')
    .where('host', 'in', hosts)
    .$if(companyId !== null, (qb) => qb.where('company_id', '<>', companyId!))
    .orderBy('host')
    .execute();
  const named = taken.length > 0 ? taken.map((t) => t.host).join(', ') : hosts.join(', ');
  return new ApiError('conflict', `Hosts already used by another company: ${named}.`);
}

/** Runs a company's write statement; a host another company holds is 409 naming it. */
async function withHosts<T>(db: Executor, companyId: string | null, hosts: string[] | undefined, write: () => Promise<T>) {
  try {
    return await write();
  } catch (error) {
    if (hosts && isUniqueViolation(error)) throw await hostsTaken(db, companyId, hosts);
    throw error;
  }
}

type UrlChecks = Pick<WebhookRuntime, 'resolveHost'>;

/** The rebuild hook follows the workspace's webhook URL rules (https and no private hosts in production). */
async function checkRebuildHook(
  settings: { rebuild_hook_url?: string | null } | undefined,
  environment: Company['environment'],
  urls: UrlChecks,
) {
  const url = settings?.rebuild_hook_url;
  if (url) await assertDeliverable(url, environment, urls, 'settings.rebuild_hook_url');
}

/** A new company with its hosts and audit row, in one statement. */
export async function createCompany(
  db: Executor,
  input: z.infer<typeof CreateCompanyInput>,
  urls: UrlChecks = {},
): Promise<CompanyWithHosts> {
  if (!isKnownCurrency(input.currency)) {
    // The currency's digits come from ISO 4217 (lib/money.ts): a code it does not assign would have none to keep.
    const message = `${input.currency} is not an ISO 4217 currency code.`;
    throw new ApiError('invalid_request', message, { errors: [{ path: 'currency', code: 'unknown_currency', message }] });
  }
  await checkRebuildHook(input.settings, input.environment, urls);
  const hosts = [...new Set(input.hosts)].sort();
  const insert = db
    .insertInto('companies')
    .values({
      name: input.name,
      environment: input.environment,
      currency: input.currency,
      time_zone: input.time_zone,
      settings: JSON.stringify(input.settings),
    })
    .returningAll();
  const { rows } = await withHosts(db, null, hosts, () =>
    sql<Company>`
      with changed as (${insert}),
      added as (insert into company_hosts (host, company_id) select host, (select id from changed) from unnest(${hosts}::text[]) as host),
      ${auditCte('audited', 'changed', { actor: 'admin', action: 'company.created', subject: 'id', company: 'id' })}
      select * from changed`.execute(db),
  );
  return { ...rows[0]!, hosts };
}

/**
 * The company changed in one statement with its hosts (when given: those no longer listed removed, the new ones
 * added) and its audit row; a new rebuild hook is checked against the workspace's rules first (a read of the company).
 * A change of `statement_grace_days` first reads the company too: the statement records the months of owner
 * statements closed at `now` under the days it replaces (lib/statement-months.ts), so raising them never reopens a
 * month, and it changes the row only if those days are still the ones read (another change in between: read again).
 */
export async function updateCompany(
  db: Executor,
  id: string,
  input: z.infer<typeof UpdateCompanyInput>,
  now: Date,
  urls: UrlChecks = {},
): Promise<CompanyWithHosts> {
  const graceChange = input.settings?.statement_grace_days !== undefined;
  for (let attempt = 1; ; attempt++) {
    const before = input.settings?.rebuild_hook_url || graceChange ? await findCompany(db, id) : undefined;
    if (input.settings?.rebuild_hook_url) await checkRebuildHook(input.settings, before!.environment, urls);
    const changed = await changeCompanyRow(db, id, input, now, graceChange ? before : undefined);
    if (changed) return changed;
    if (!graceChange) throw notFound(`The company ${id}`);
    // The grace days changed since the read (a company that went is 404 at the next read).
    if (attempt === 3)
      throw new ApiError('conflict', 'The company’s statement_grace_days kept changing meanwhile: send it again.');
  }
}

/**
 * The statement of {@link updateCompany}; undefined when no row changed. With `graceFrom` (the company as read), the
 * months closed under its grace days are recorded, and the row changes only while it still has them.
 */
async function changeCompanyRow(
  db: Executor,
  id: string,
  input: z.infer<typeof UpdateCompanyInput>,
  now: Date,
  graceFrom: Company | undefined,
): Promise<CompanyWithHosts | undefined> {
  const hosts = input.hosts ? [...new Set(input.hosts)].sort() : null;
  const readGrace = graceFrom?.settings.statement_grace_days;
  const update = db
    .updateTable('companies')
    .set({
      ...(input.name === undefined ? {} : { name: input.name }),
      settings: mergedSettings(input.settings),
      updated_at: stamp,
    })
    .where('id', '=', id)
    .$if(graceFrom !== undefined, (qb) =>
      qb.where(
        sql<boolean>`settings -> 'statement_grace_days' is not distinct from ${readGrace === undefined ? null : JSON.stringify(readGrace)}::jsonb`,
      ),
    )
    .returningAll();
  // The months the replaced days closed, with their Tourism Dirham (lib/tourism-dirham.ts), as the scheduled work records them.
  const closings = graceFrom
    ? sql`closed as (${recordClosings(graceFrom, now, sql`exists (select from changed)`)}),
      dirham as (${recordClosedDirham(graceFrom, 'closed', now)}),`
    : sql``;
  const { rows } = await withHosts(db, id, hosts ?? undefined, () =>
    sql<CompanyWithHosts>`
      with changed as (${update}),
      ${closings}
      removed as (
        delete from company_hosts where ${hosts !== null} and company_id = (select id from changed)
        and host <> all(${hosts ?? []}::text[])
      ),
      added as (
        insert into company_hosts (host, company_id)
        select host, (select id from changed) from unnest(${hosts ?? []}::text[]) as host
        where exists (select from changed)
        and host not in (select h.host from company_hosts h where h.company_id = ${id})
      ),
      ${auditCte('audited', 'changed', { actor: 'admin', action: 'company.updated', subject: 'id', company: 'id', details: { ...input } })}
      select changed.*, coalesce(${hosts}::text[], array(select h.host from company_hosts h where h.company_id = changed.id
        order by h.host)) as hosts
      from changed`.execute(db),
  );
  return rows[0];
}

/**
 * The settings merged into the current ones: each key sent replaces its value, except `tax_categories`, whose kinds
 * are merged into the current kinds (a kind left out keeps its category).
 */
function mergedSettings(settings: z.infer<typeof UpdateCompanyInput>['settings']) {
  const merged = sql<string>`settings || ${JSON.stringify(settings ?? {})}::jsonb`;
  if (settings?.tax_categories === undefined) return merged;
  return sql<string>`${merged} || jsonb_build_object('tax_categories',
    coalesce(settings -> 'tax_categories', '{}'::jsonb) || ${JSON.stringify(settings.tax_categories)}::jsonb)`;
}

/** Every company, oldest first, as the admin API shows them. */
export async function allCompanies(db: Db) {
  const rows = await db.selectFrom('companies').selectAll().orderBy('created_at').execute();
  return Promise.all(rows.map((row) => presentStoredCompany(db, row)));
}

/** Sets (or, with null, removes) the company's Turnstile secret, stored encrypted; audited without the secret. */
export async function setCompanySpamCheck(db: Db, config: Config, companyId: string, secret: string | null): Promise<void> {
  const sealed = secret === null ? null : await sealSpamCheckSecret(keyringOf(config), secret);
  const action = secret === null ? 'spam_check.removed' : 'spam_check.set';
  const update = db.updateTable('companies').set({ spam_check_secret_jwe: sealed }).where('id', '=', companyId).returning('id');
  const { rows } = await sql`
    with changed as (${update}), ${auditCte('audited', 'changed', { actor: 'admin', action, subject: 'id', company: 'id' })}
    select id from changed`.execute(db);
  if (rows.length === 0) throw notFound(`The company ${companyId}`);
}

/**
 * Sets the company's Accredited Service Provider (PUT /companies/{id}/einvoicing): its endpoint, under the webhooks'
 * URL rules (400 at `url`), and the secret both sides sign with, stored encrypted (details keys) and never shown again.
 * Audited without the secret. `null`: removed (DELETE), and nothing is handed off until one is set again.
 */
export async function setCompanyEinvoicing(
  db: Db,
  config: Config,
  urls: UrlChecks,
  companyId: string,
  provider: { url: string; secret: string } | null,
): Promise<{ configured: boolean; url: string | null }> {
  const company = await findCompany(db, companyId);
  if (provider) await assertDeliverable(provider.url, company.environment, urls, 'url');
  const sealed = provider === null ? null : await sealEinvoiceSecret(keyringOf(config), provider.secret);
  const action = provider === null ? 'einvoicing.removed' : 'einvoicing.set';
  const update = db
    .updateTable('companies')
    .set({ einvoice_url: provider?.url ?? null, einvoice_secret_jwe: sealed })
    .where('id', '=', companyId)
    .returning('id');
  const details = provider === null ? {} : { url: provider.url };
  const { rows } = await sql`
    with changed as (${update}), ${auditCte('audited', 'changed', { actor: 'admin', action, subject: 'id', company: 'id', details })}
    select id from changed`.execute(db);
  if (rows.length === 0) throw notFound(`The company ${companyId}`);
  return { configured: provider !== null, url: provider?.url ?? null };
}

/** POST /companies: the company made in one statement with its hosts and audit row, as shown. */
export async function addCompany(db: Db, input: z.infer<typeof CreateCompanyInput>, urls: UrlChecks) {
  const { hosts, ...company } = await createCompany(db, input, urls);
  return presentCompany(company, hosts);
}

/** PATCH /companies/{id}, as shown. */
export async function changeCompany(db: Db, id: string, input: z.infer<typeof UpdateCompanyInput>, now: Date, urls: UrlChecks) {
  const { hosts, ...company } = await updateCompany(db, id, input, now, urls);
  return presentCompany(company, hosts);
}

/** One company, as shown (404 when there is none). */
export async function oneCompany(db: Db, id: string) {
  return presentStoredCompany(db, await findCompany(db, id));
}
