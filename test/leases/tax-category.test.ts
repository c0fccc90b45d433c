import { describe, expect, it } from 'vitest';
import type { AdminBody } from '../support/client';
import { demo } from '../support/harness';
import { leasesOf, useWorld } from '../support/world';

/**
 * A lease's and a listing's own tax category for their rent (issue 35, first slice; docs/api-reference.md, "Tax"):
 * optional, nullable, over the company's default for the rent's kind.
 */
const w = useWorld();
const l = leasesOf(w);

describe('a lease’s tax_category', () => {
  it('is null unless given, taken at creation, and changed or removed at any time (an active lease too)', async () => {
    expect((await l.draft()).tax_category).toBeNull();
    const lease = await l.active({ tax_category: 'standard' });
    expect(lease.tax_category).toBe('standard');
    expect((await l.get(lease.reference)).data?.tax_category).toBe('standard');
    const changed = await l.patch(lease.reference, { tax_category: 'zero_rated' });
    expect(changed.response.status, JSON.stringify(changed.error)).toBe(200);
    expect(changed.data?.tax_category).toBe('zero_rated');
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created', 'lease.activated', 'lease.updated']);
    const removed = await l.patch(lease.reference, { tax_category: null });
    expect(removed.data?.tax_category).toBeNull();
    const stored = await w.api.db.selectFrom('leases').select('tax_category').where('reference', '=', lease.reference).execute();
    expect(stored).toEqual([{ tax_category: null }]);
  });

  it('is kept by the lease’s renewal', async () => {
    const lease = await l.active({ tax_category: 'exempt' });
    const renewal = await l.renew(lease.reference);
    expect(renewal.response.status, JSON.stringify(renewal.error)).toBe(201);
    expect(renewal.data?.tax_category).toBe('exempt');
  });

  it.each([['reduced'], ['STANDARD'], [5], ['']])('refuses %j at tax_category, adding or changing nothing', async (value) => {
    const added = await l.post({ tax_category: value });
    expect(added.response.status).toBe(400);
    expect(added.error?.errors?.map((e) => e.path)).toEqual(['tax_category']);
    const lease = await l.draft({ tax_category: 'standard' });
    const changed = await l.patch(lease.reference, { tax_category: value });
    expect(changed.response.status).toBe(400);
    expect(changed.error?.errors?.map((e) => e.path)).toEqual(['tax_category']);
    expect((await l.get(lease.reference)).data?.tax_category).toBe('standard');
  });
});

describe('a listing’s tax_category (catalogue import)', () => {
  const importListings = (listings: unknown[]) =>
    w.adminClient.POST('/admin/v1/companies/{company_id}/catalogue/import', {
      params: { path: { company_id: w.company.id } },
      body: { listings } as AdminBody<'importCompanyCatalogue'>,
    });
  const office = demo.listings.find((listing) => listing.property_type === 'office')!;
  const stored = async () =>
    (
      await w.api.db
        .selectFrom('listings')
        .select('tax_category')
        .where('company_id', '=', w.company.id)
        .where('slug_en', '=', office.slug.en)
        .executeTakeFirstOrThrow()
    ).tax_category;

  it('is stored as imported, and null when the document leaves it out', async () => {
    expect(await stored()).toBeNull();
    const res = await importListings([{ ...office, tax_category: 'standard' }]);
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(await stored()).toBe('standard');
    await importListings([{ ...office }]);
    expect(await stored()).toBeNull();
  });

  it('refuses an unknown category at the listing’s field, keeping nothing of the import', async () => {
    await importListings([{ ...office, tax_category: 'exempt' }]);
    const res = await importListings([{ ...office, tax_category: 'luxury' }]);
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toEqual(['listings.0.tax_category']);
    expect(await stored()).toBe('exempt');
  });
});
