import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CatalogueImportInput } from '../schema/catalogue/admin';

/**
 * The catalogue import's format as a JSON Schema (draft 2020-12), generated from the zod schema the import validates
 * with (CatalogueImportInput, schema/catalogue/admin.ts: the body of `POST /admin/v1/companies/{id}/catalogue/import`
 * and of `npm run admin -- catalogue import`). Its input side: what a file may hold (defaults may be left out).
 * `npx tsx bin/catalogue-schema.ts` rewrites docs/formats/catalogue-import.schema.json; `--check` only compares
 * (test/catalogue/import-format.test.ts fails when they differ). The sample beside it is imported by that test.
 */
export const schemaPath = fileURLToPath(new URL('../docs/formats/catalogue-import.schema.json', import.meta.url));
export const samplePath = fileURLToPath(new URL('../docs/formats/catalogue-import.sample.json', import.meta.url));

export function catalogueImportSchema(): string {
  const generated = z.toJSONSchema(CatalogueImportInput, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' });
  const { $schema, ...rest } = generated as Record<string, unknown>;
  const document = {
    $schema,
    $id: 'catalogue-import.schema.json',
    title: 'Catalogue import',
    description:
      'A company’s catalogue for POST /admin/v1/companies/{company_id}/catalogue/import (npm run admin -- catalogue import <company> <file.json>): areas, property types, services, team and listings, each an upsert by its key. Generated from the zod schema the import validates with (bin/catalogue-schema.ts); a sample is catalogue-import.sample.json.',
    ...rest,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    if (readFileSync(schemaPath, 'utf8') !== catalogueImportSchema()) {
      console.error('docs/formats/catalogue-import.schema.json differs from the import schema: run `npm run catalogue:schema`.');
      process.exit(1);
    }
  } else {
    writeFileSync(schemaPath, catalogueImportSchema());
    console.log(`wrote ${schemaPath}`);
  }
}
