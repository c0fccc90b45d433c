import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { catalogueImportSchema, samplePath, schemaPath } from '../../bin/catalogue-schema';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { createCompany, importCatalogue, useApi } from '../support/world';
import { catalogue, importDoc } from './support';

/**
 * The catalogue import's published format (docs/formats): its JSON Schema stays what the import's zod schema gives,
 * a JSON Schema validator (Ajv, draft 2020-12) accepts the sample and the demo catalogue and refuses what the import
 * refuses, and the import takes the sample.
 */
const api = useApi();

async function load() {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8'));
  const sample = JSON.parse(await readFile(samplePath, 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return { schema, sample, validate: ajv.compile(schema) };
}

describe('the catalogue import format', () => {
  it('is the JSON Schema generated from the import’s zod schema (run `npm run catalogue:schema`)', async () => {
    expect(await readFile(schemaPath, 'utf8')).toBe(catalogueImportSchema());
  });

  it('accepts the sample and the demo catalogue, and refuses a listing the import refuses', async () => {
    const { sample, validate } = await load();
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(demoCatalogue), JSON.stringify(validate.errors)).toBe(true);
    const broken = structuredClone(sample);
    broken.listings[0].listing_type = 'castle';
    broken.listings[0].colour = 'blue';
    expect(validate(broken)).toBe(false);
    const company = await createCompany(api);
    const refused = await importDoc(api, company.id, broken);
    expect(refused.response.status).toBe(400);
  });

  it('is imported by the import: the sample’s listings are then served', async () => {
    const { sample } = await load();
    const company = await createCompany(api);
    const counts = await importCatalogue(api, company.id, sample);
    expect(counts).toMatchObject({ listings: sample.listings.length });
    const published = sample.listings.filter((l: { status: string }) => l.status === 'published');
    const list = await catalogue(api, company.host).client.GET('/api/v1/listings', { params: { query: { page_size: 100 } } });
    expect(list.response.status).toBe(200);
    expect(list.data?.results.map((l) => l.slug.en).sort()).toEqual(
      published.map((l: { slug: { en: string } }) => l.slug.en).sort(),
    );
  });
});
