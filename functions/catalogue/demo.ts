import type { Trx } from '../../lib/db/index';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { importCatalogue } from './content';
import demoCatalogue from './demo-catalogue.json' with { type: 'json' };

/** The catalogue's demo data: 32 listings for sale, lease and holiday homes, in English and Arabic. */
export async function seedCatalogueDemo(trx: Trx, companyId: string): Promise<void> {
  await importCatalogue(trx, companyId, CatalogueImportInput.parse(demoCatalogue));
}
