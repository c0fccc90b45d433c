import type { Db } from '../lib/db/index';
import { createCompany } from './admin/companies';
import { seedCatalogueDemo } from './catalogue/demo';
import { seedLeasesDemo } from './leases/demo';
import { seedMaintenanceDemo } from './maintenance/demo';
import { seedPipelinesDemo } from './pipelines/demo';
import { seedStatementsDemo } from './statements/demo';
import { seedStayDemo } from './stay/demo';

export const demoHosts = ['localhost', '127.0.0.1'];

/**
 * On a fresh database: a development company on localhost with each group's demo data (the catalogue's; leases and rent
 * payments dated around `now`; maintenance's; the pipelines'; a holiday home's booking, paid; the statements' months already closed, as announced), in one transaction. Runs once: a database with a
 * company on localhost is left alone. With the deployment's media base URL, the listings' public forms are
 * rendered too (otherwise the first reads render them).
 */
export async function seedDemo(db: Db, now: Date, mediaBaseUrl?: string): Promise<{ seeded: boolean; companyId: string }> {
  const existing = await db.selectFrom('company_hosts').select('company_id').where('host', '=', 'localhost').executeTakeFirst();
  if (existing) return { seeded: false, companyId: existing.company_id };
  const companyId = await db.transaction().execute(async (trx) => {
    const company = await createCompany(trx, {
      name: 'Demo Properties',
      hosts: demoHosts,
      environment: 'development',
      currency: 'AED',
      time_zone: 'Asia/Dubai',
      // A Dubai company: its listings carry the permits Dubai requires, and the portal feeds show them.
      // Registered for VAT (issue 35): a test TRN of the published shape (15 digits, 1…03), its registration day, and
      // what its tax invoices name (legal name, address, trade licence), so its receipts issue invoices.
      settings: {
        team_module: true,
        bookings_enabled: true,
        site_url: 'https://www.demo-properties.ae',
        market: 'dubai',
        trn: '100200300400003',
        vat_registered_on: '2018-01-01',
        legal_name: 'Demo Properties Management L.L.C.',
        address: { line1: 'Office 1804, Bay Square 12, Business Bay', city: 'Dubai', emirate: 'DXB' },
        trade_licence: { number: 'DED-1088342', authority: 'Dubai Economy and Tourism' },
      },
    });
    await seedCatalogueDemo(trx, company.id, now, mediaBaseUrl);
    await seedLeasesDemo(trx, company, now);
    await seedMaintenanceDemo(trx, company, now);
    await seedPipelinesDemo(trx, company.id);
    await seedStayDemo(trx, company, now);
    await seedStatementsDemo(trx, company, now);
    return company.id;
  });
  return { seeded: true, companyId };
}

/** How many companies the database has: a production start (no demo) says how to create the first when none. */
export async function countCompanies(db: Db): Promise<number> {
  const row = await db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * What a production start prints on a database without a company; `admin` is the admin command line as this server's
 * operator runs it (with DATA_DIR when the server uses another data folder: without it the command finds no server).
 */
export const firstCompanyHelp = (admin: string) => `
  No company yet (production: no demo data is created). Create the first one with the admin command line:
    ${admin} companies create --name "Example Properties" --host api.example.com \\
      --environment production --currency AED --time-zone Asia/Dubai
  then a key for it: ${admin} keys create <company id> --kind server --scope read:listings`;
