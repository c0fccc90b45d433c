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
export async function seedCatalogueDemo(trx: Trx, companyId: string, mediaBaseUrl?: string): Promise<void> {
  const company = mediaBaseUrl === undefined ? undefined : await findCompany(trx, companyId);
  const render = company && mediaBaseUrl !== undefined ? await renderContext(company, mediaBaseUrl) : null;
  await importCatalogue(trx, companyId, CatalogueImportInput.parse(demoCatalogue), { render });
}
