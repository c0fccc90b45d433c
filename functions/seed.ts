import type { Db } from '../lib/db/index';
import { createCompany } from './admin/companies';
import { seedCatalogueDemo } from './catalogue/demo';
import { seedMaintenanceDemo } from './maintenance/demo';

export const demoHosts = ['localhost', '127.0.0.1'];

/** On a fresh database: a development company on localhost with each group's demo data (the catalogue's, then maintenance's). Runs once. */
export async function seedDemo(db: Db): Promise<{ seeded: boolean; companyId: string }> {
  const existing = await db.selectFrom('company_hosts').select('company_id').where('host', '=', 'localhost').executeTakeFirst();
  if (existing) return { seeded: false, companyId: existing.company_id };
  const companyId = await db.transaction().execute(async (trx) => {
    const company = await createCompany(trx, {
      name: 'Demo Properties',
      hosts: demoHosts,
      environment: 'development',
      currency: 'AED',
      time_zone: 'Asia/Dubai',
      settings: { team_module: true, bookings_enabled: true, site_url: 'https://www.demo-properties.ae' },
    });
    await seedCatalogueDemo(trx, company.id);
    await seedMaintenanceDemo(trx, company);
    return company.id;
  });
  return { seeded: true, companyId };
}
