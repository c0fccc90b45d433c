import type { Trx } from '../../lib/db/index';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { findCompany } from '../../lib/admin-route';
import { importCatalogue } from './content';
import { renderContext } from './renders';
import demoCatalogue from './demo-catalogue.json' with { type: 'json' };

/**
 * The catalogue's demo data: 32 listings for sale, lease and holiday homes, in English and Arabic. Rendered for
 * the deployment's media base URL when given; otherwise the first reads render them (renders.ts).
 */
export async function seedCatalogueDemo(trx: Trx, companyId: string, now: Date, mediaBaseUrl?: string): Promise<void> {
  const company = await findCompany(trx, companyId);
  const render = mediaBaseUrl === undefined ? null : await renderContext(company, mediaBaseUrl);
  await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render, now });
}
