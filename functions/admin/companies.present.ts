import type { Executor } from '../../lib/db/index';
import { iso } from '../../lib/dates';
import { companyTaxCategories } from '../../lib/tax';
import type { Company } from '../../schema/platform/db';

/** A company as the admin API shows it, with its hosts. */
export function presentCompany(company: Company, hosts: string[]) {
  return {
    id: company.id,
    name: company.name,
    environment: company.environment,
    currency: company.currency,
    time_zone: company.time_zone,
    hosts,
    settings: company.settings,
    tax: {
      trn: company.settings.trn ?? null,
      vat_registered_on: company.settings.vat_registered_on ?? null,
      categories: companyTaxCategories(company.settings),
    },
    spam_check: { configured: company.spam_check_secret_jwe !== null },
    einvoicing: { configured: company.einvoice_secret_jwe !== null, url: company.einvoice_url },
    created_at: iso(company.created_at),
  };
}

/** A company read as the admin API shows it: its hosts in one query. */
export async function presentStoredCompany(db: Executor, company: Company) {
  const hosts = await db
    .selectFrom('company_hosts')
    .select('host')
    .where('company_id', '=', company.id)
    .orderBy('host')
    .execute();
  return presentCompany(
    company,
    hosts.map((h) => h.host),
  );
}
