import type { Executor } from '../../lib/db/index';
import { iso } from '../../lib/dates';
import type { Company } from '../../schema/platform/db';

/** A company as the admin API shows it: with its hosts (one query). */
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
