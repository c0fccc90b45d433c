import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { settings } from '../../bin/collection';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };

/**
 * What the README tells a new user about this repository's own files, checked against them: the demo's listings as
 * the seed has them, and the Postman collection's variables as bin/collection.ts writes them.
 */
const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');

describe('the README', () => {
  it("counts the demo's listings as the demo catalogue has them", () => {
    const listings = demoCatalogue.listings as Array<{ status: string; listing_type: string }>;
    const published = listings.filter((listing) => listing.status === 'published');
    const ofType = (type: string) => published.filter((listing) => listing.listing_type === type).length;
    const claim =
      /\((\d+) published listings: (\d+) for sale, (\d+) for lease and (\d+) holiday\s+homes,[^)]*?(\d+) more unpublished/.exec(
        readme,
      );
    expect(claim?.slice(1).map(Number)).toEqual([
      published.length,
      ofType('sale'),
      ofType('lease'),
      ofType('holiday_home'),
      listings.length - published.length,
    ]);
  });

  it("names the Postman collection's variables as the collection has them, each of them", () => {
    const section = readme.slice(readme.indexOf('`collections/property-api.postman_collection.json` is'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| variable |')));
    const named = table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...(line.split(' | ')[0] ?? '').matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]));
    expect(named.sort()).toEqual(settings.map(([key]) => key).sort());
  });
});
