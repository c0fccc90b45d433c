import type { Trx } from '../../lib/db/index';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { findCompany } from '../../lib/admin-route';
import { importCatalogue } from './content';
import { renderContext } from './renders';
import demoCatalogue from './demo-catalogue.json' with { type: 'json' };

/**
 * The catalogue's demo data (demo-catalogue.json): 32 listings in English and Arabic, 29 of them published (11 for sale, 9
 * for lease, 9 holiday homes) and 3 not (a draft holiday home, a withdrawn sale and a withdrawn lease). Rendered for
 * the deployment's media base URL when given; otherwise the first reads render them (renders.ts).
 */
export async function seedCatalogueDemo(trx: Trx, companyId: string, now: Date, mediaBaseUrl?: string): Promise<void> {
  const company = await findCompany(trx, companyId);
  const render = mediaBaseUrl === undefined ? null : await renderContext(company, mediaBaseUrl);
  await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render, now });
}
