import type { Trx } from '../../lib/db/index';
import { addDays, todayIn } from '../../lib/dates';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { findCompany } from '../../lib/admin-route';
import { importCatalogue } from './content';
import { renderContext } from './renders';
import demoCatalogue from './demo-catalogue.json' with { type: 'json' };

/** How long the demo's advertising permits run from the day it is seeded (a Trakheesi permit runs for months). */
export const demoPermitDays = 365;

/**
 * The catalogue's demo data: 32 listings for sale, lease and holiday homes, in English and Arabic, each with its agent
 * (a team profile with a licence number) and, in Dubai, its advertising permit, so the portal feeds carry the demo's
 * listings (issue 32). The permits run {@link demoPermitDays} days from the company's today, whenever it is seeded.
 * Rendered for the deployment's media base URL when given; otherwise the first reads render them (renders.ts).
 */
export async function seedCatalogueDemo(trx: Trx, companyId: string, now: Date, mediaBaseUrl?: string): Promise<void> {
  const company = await findCompany(trx, companyId);
  const render = mediaBaseUrl === undefined ? null : await renderContext(company, mediaBaseUrl);
  const expiresOn = addDays(todayIn(company.time_zone, now), demoPermitDays);
  const doc = CatalogueImportInput.parse(demoCatalogue);
  for (const listing of doc.listings) if (listing.permit) listing.permit.expires_on = expiresOn;
  await importCatalogue(trx, company, doc, { render, now });
}
