import type { Trx } from '../../lib/db/index';
import { addDays, todayIn } from '../../lib/dates';
import { type CatalogueImport, CatalogueImportInput } from '../../schema/catalogue/admin';
import { findCompany } from '../../lib/admin-route';
import { importCatalogue } from './content';
import { renderContext } from './renders';
import demoCatalogue from './demo-catalogue.json' with { type: 'json' };

/** How long the demo's advertising permits run from the day it is seeded (a Trakheesi permit runs for months). */
export const demoPermitDays = 365;

/** Who handles each kind of demo listing: team profiles of the demo file, each with a licence number (BRN). */
const demoAgents = { sale: 'Sara Haddad', lease: 'Omar Al Mansoori', holiday_home: 'Priya Nair' } as const;

/**
 * The demo catalogue as the seed imports it on the company's `today`: the demo file (32 listings in English and Arabic,
 * 29 of them published: 11 for sale, 9 for lease, 9 holiday homes; 3 not: a draft holiday home, a withdrawn sale and
 * a withdrawn lease), each listing with its agent and, in Dubai, its advertising permit (a
 * Trakheesi permit; a DTCM one for a holiday home), valid for {@link demoPermitDays} days from `today`, so the portal
 * feeds carry the demo whenever it is seeded (issue 32). The file itself names no agent or permit: tests import its
 * listings into companies of their own, without its team.
 */
export function demoCatalogueOn(today: string): CatalogueImport {
  const doc = CatalogueImportInput.parse(demoCatalogue);
  const expiresOn = addDays(today, demoPermitDays);
  doc.listings.forEach((listing, n) => {
    listing.agent = demoAgents[listing.listing_type];
    if (listing.city !== 'dubai') return;
    const holidayHome = listing.listing_type === 'holiday_home';
    listing.permit = {
      number: holidayHome ? `DTCM-${String(400 + n).padStart(5, '0')}` : String(7_117_361_830 + n),
      authority: holidayHome ? 'dtcm' : 'dld',
      expires_on: expiresOn,
      verification_url: null,
    };
  });
  return doc;
}

/**
 * The catalogue's demo data ({@link demoCatalogueOn}). Rendered for the deployment's media base URL when given;
 * otherwise the first reads render them (renders.ts).
 */
export async function seedCatalogueDemo(trx: Trx, companyId: string, now: Date, mediaBaseUrl?: string): Promise<void> {
  const company = await findCompany(trx, companyId);
  const render = mediaBaseUrl === undefined ? null : await renderContext(company, mediaBaseUrl);
  await importCatalogue(trx, company, demoCatalogueOn(todayIn(company.time_zone, now)), { render, now });
}
