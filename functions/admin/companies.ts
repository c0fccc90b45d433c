import type { z } from '@hono/zod-openapi';
import type { Company } from '../../schema/platform/db';
import type { CreateCompanyInput, UpdateCompanyInput } from '../../schema/platform/admin';
import type { Executor, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { findCompany } from '../../lib/admin-route';
import { writeAudit } from '../../lib/audit';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import { assertDeliverable } from './webhooks';
import { iso } from '../../lib/dates';

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
  urls: UrlChecks = {},
): Promise<Company> {
  const current = await findCompany(trx, id);
  await checkRebuildHook(input.settings, current.environment, urls);
  const company = await trx
    .updateTable('companies')
    .set({
      name: input.name ?? current.name,
      settings: JSON.stringify({ ...current.settings, ...(input.settings ?? {}) }),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (input.hosts) await setHosts(trx, id, input.hosts);
  await writeAudit(trx, { companyId: id, actor: 'admin', action: 'company.updated', subject: id, details: { ...input } });
  return company;
}

export async function presentCompany(db: Executor, company: Company) {
  const hosts = await db
    .selectFrom('company_hosts')
    .select('host')
    .where('company_id', '=', company.id)
    .orderBy('host')
    .execute();
  return {
    id: company.id,
    name: company.name,
    environment: company.environment,
    currency: company.currency,
    time_zone: company.time_zone,
    hosts: hosts.map((h) => h.host),
    settings: company.settings,
    spam_check: { configured: company.spam_check_secret_jwe !== null },
    created_at: iso(company.created_at),
  };
}
