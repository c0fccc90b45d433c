import type { Executor } from '../../lib/db/index';
import { localised } from '../../lib/localise';
import type { ListingType } from '../../schema/catalogue/db';
import type { Company } from '../../schema/platform/db';
import { enabledTypes } from '../../lib/listing-filters';

/** The filter options of each enabled listing type, with the counts of published listings behind each option. */
export async function filterGroups(db: Executor, company: Company) {
  // The counts are kept by the database (catalogue_counts, migration 0015), so this reads a few hundred rows at
  // most whatever the number of listings; zero counts (a value no published listing has any more) are left out.
  const [counts, propertyTypes, places] = await Promise.all([
    db
      .selectFrom('catalogue_counts')
      .select(['listing_type', 'dimension', 'value', 'n'])
      .where('company_id', '=', company.id)
      .where('n', '>', '0')
      .execute(),
    db
      .selectFrom('property_types')
      .select(['value', 'name'])
      .where('company_id', '=', company.id)
      .orderBy('position')
      .orderBy('value')
      .execute(),
    db
      .selectFrom('areas')
      .select(['id', 'kind', 'slug_en', 'name'])
      .where('company_id', '=', company.id)
      .orderBy('position')
      .orderBy('slug_en')
      .execute(),
  ]);
  const results = enabledTypes(company).map((type: ListingType) => {
    const ofType = counts.filter((r) => r.listing_type === type);
    const count = (dimension: (typeof counts)[number]['dimension'], value: string) =>
      Number(ofType.find((r) => r.dimension === dimension && r.value === value)?.n ?? 0);
    const placeOptions = (kind: 'city' | 'area' | 'project') =>
      places
        .filter((p) => p.kind === kind)
        .map((p) => ({ value: p.slug_en, label: localised(p.name), count: count(kind, p.id) }))
        .filter((o) => o.count > 0);
    return {
      type,
      count: count('total', ''),
      property_types: propertyTypes.map((p) => ({
        value: p.value,
        label: localised(p.name),
        count: count('property_type', p.value),
      })),
      areas: [...placeOptions('city'), ...placeOptions('area')],
      projects: placeOptions('project'),
      bedrooms: ofType
        .filter((r) => r.dimension === 'bedrooms')
        .map((r) => ({ value: Number(r.value), count: Number(r.n) }))
        .sort((a, b) => a.value - b.value),
      completion: ofType
        .filter((r) => r.dimension === 'completion')
        .map((r) => ({ value: r.value as 'ready' | 'off_plan', count: Number(r.n) }))
        .sort((a, b) => a.value.localeCompare(b.value)),
    };
  });
  return results;
}
