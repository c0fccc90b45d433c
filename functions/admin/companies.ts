import type { z } from '@hono/zod-openapi';
import type { Company } from '../../schema/platform/db';
import type { CreateCompanyInput, UpdateCompanyInput } from '../../schema/platform/admin';
import type { Db, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { findCompany } from '../../lib/admin-route';
import { writeAudit } from '../../lib/audit';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import { assertDeliverable } from './webhooks';
import { keyringOf } from '../../lib/crypto-jwe';
import { setSpamCheckSecret } from '../../lib/spam-check';
import type { Config } from '../../lib/config';
import { presentCompany } from './companies.present';

async function setHosts(trx: Trx, companyId: string, hosts: string[]): Promise<void> {
  const unique = [...new Set(hosts)];
  const taken = await trx
    .selectFrom('company_hosts')
    .select('host')
    .where('host', 'in', unique)
    .where('company_id', '<>', companyId)
    .execute();
  if (taken.length > 0) {
    throw new ApiError('conflict', `Hosts already used by another company: ${taken.map((t) => t.host).join(', ')}.`);
  }
  // A concurrent claim of the same host still fails on the primary key (answered 409 by the app).
  await trx.deleteFrom('company_hosts').where('company_id', '=', companyId).execute();
  await trx
    .insertInto('company_hosts')
    .values(unique.map((host) => ({ host, company_id: companyId })))
    .execute();
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

export async function createCompany(trx: Trx, input: z.infer<typeof CreateCompanyInput>, urls: UrlChecks = {}): Promise<Company> {
  await checkRebuildHook(input.settings, input.environment, urls);
  const company = await trx
    .insertInto('companies')
    .values({
      name: input.name,
      environment: input.environment,
      currency: input.currency,
      time_zone: input.time_zone,
      settings: JSON.stringify(input.settings),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await setHosts(trx, company.id, input.hosts);
  await writeAudit(trx, { companyId: company.id, actor: 'admin', action: 'company.created', subject: company.id });
  return company;
}

export async function updateCompany(
  trx: Trx,
  id: string,
  input: z.infer<typeof UpdateCompanyInput>,
  now: Date,
  urls: UrlChecks = {},
): Promise<Company> {
  const current = await findCompany(trx, id);
  await checkRebuildHook(input.settings, current.environment, urls);
  const company = await trx
    .updateTable('companies')
    .set({
      name: input.name ?? current.name,
      settings: JSON.stringify({ ...current.settings, ...(input.settings ?? {}) }),
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (input.hosts) await setHosts(trx, id, input.hosts);
  await writeAudit(trx, { companyId: id, actor: 'admin', action: 'company.updated', subject: id, details: { ...input } });
  return company;
}

/** Every company, oldest first, as the admin API shows them. */
export async function allCompanies(db: Db) {
  const rows = await db.selectFrom('companies').selectAll().orderBy('created_at').execute();
  return Promise.all(rows.map((row) => presentCompany(db, row)));
}

/** Sets (or, with null, removes) the company's Turnstile secret, stored encrypted; audited without the secret. */
export async function setCompanySpamCheck(db: Db, config: Config, companyId: string, secret: string | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await findCompany(trx, companyId);
    await setSpamCheckSecret(trx, companyId, secret, keyringOf(config));
    await writeAudit(trx, {
      companyId,
      actor: 'admin',
      action: secret === null ? 'spam_check.removed' : 'spam_check.set',
      subject: companyId,
    });
  });
}

/** POST /companies: the company made in one transaction with its hosts and audit row, as shown. */
export async function addCompany(db: Db, input: z.infer<typeof CreateCompanyInput>, urls: UrlChecks) {
  const company = await db.transaction().execute((trx) => createCompany(trx, input, urls));
  return presentCompany(db, company);
}

/** PATCH /companies/{id}, as shown. */
export async function changeCompany(db: Db, id: string, input: z.infer<typeof UpdateCompanyInput>, now: Date, urls: UrlChecks) {
  const company = await db.transaction().execute((trx) => updateCompany(trx, id, input, now, urls));
  return presentCompany(db, company);
}

/** One company, as shown (404 when there is none). */
export async function oneCompany(db: Db, id: string) {
  return presentCompany(db, await findCompany(db, id));
}
