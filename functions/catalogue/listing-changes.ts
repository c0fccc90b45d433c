import type { z } from '@hono/zod-openapi';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import type { ListingAdvertisingInput } from '../../schema/catalogue/admin';
import { type Portal, portals } from '../../schema/common/permits';
import type { Company } from '../../schema/platform/db';
import { renderContext, renderListings } from './renders';
import { stamp } from '../../lib/clock';

/**
 * The admin's changes to one listing (by its English or Arabic slug): publishing, withdrawing, its advertising.
 * Each is one guarded UPDATE that also returns the company's row (joined, never locked), then the listing's forms
 * rendered and stored (renders.ts: one read, one store guarded by the forms' revision): three round trips, no
 * transaction. A change committed between the update and the render wins, as it does against any read's render.
 */

async function changeListing(db: Db, companyId: string, slug: string, set: Record<string, unknown>, guard?: RawBuilder<boolean>) {
  const row = await db
    .updateTable('listings as l')
    .from('companies as c')
    .set(set)
    .whereRef('c.id', '=', 'l.company_id')
    .where('l.company_id', '=', companyId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .$if(guard !== undefined, (qb) => qb.where(guard as RawBuilder<boolean>))
    .returning([
      'l.id as listing_id',
      'l.slug_en',
      'l.status as listing_status',
      'l.permit_number',
      'l.permit_authority',
      'l.permit_expires_on',
      'l.permit_url',
      'l.permit_expired',
      'l.agent_id',
      'l.portals_off',
    ])
    .returningAll('c')
    .executeTakeFirst();
  if (!row) return undefined;
  const { listing_id, slug_en, listing_status, permit_number, permit_authority, permit_expires_on, permit_url } = row;
  const { permit_expired, agent_id, portals_off } = row;
  const advertising = { permit_number, permit_authority, permit_expires_on, permit_url, permit_expired, agent_id, portals_off };
  const listing = { id: listing_id, slug_en, status: listing_status, advertising };
  return { ...listing, company: withoutListing(row) };
}

/** The company's row, from the joined columns the update returned (the listing's own are left out). */
function withoutListing(row: Record<string, unknown>): Company {
  const { listing_id: _i, slug_en: _s, listing_status: _t, permit_number: _n, permit_authority: _a, ...rest } = row;
  const { permit_expires_on: _e, permit_url: _u, permit_expired: _x, agent_id: _g, portals_off: _p, ...company } = rest;
  return company as unknown as Company;
}

/** Why a change matched no row: no such company, no such listing, or (`agentId`) an agent of another company. */
async function explainMiss(db: Db, companyId: string, slug: string, agentId?: string | null): Promise<never> {
  const found = await db
    .selectFrom('companies as c')
    .select((eb) => [
      eb
        .selectFrom('listings as l')
        .select('l.id')
        .whereRef('l.company_id', '=', 'c.id')
        .where((w) => w.or([w('l.slug_en', '=', slug), w('l.slug_ar', '=', slug)]))
        .limit(1)
        .as('listing'),
    ])
    .where('c.id', '=', companyId)
    .executeTakeFirst();
  if (!found) throw notFound(`The company ${companyId}`);
  if (!found.listing) throw notFound(`The listing "${slug}"`);
  throw new ApiError('invalid_request', `The agent ${agentId} is not a team profile of this company.`, {
    errors: [{ path: 'agent_id', code: 'unknown_reference', message: 'Not a team profile of this company.' }],
  });
}

async function rendered(db: Db, mediaBaseUrl: string, changed: { id: string; company: Company }) {
  await renderListings(db, await renderContext(changed.company, mediaBaseUrl), [changed.id]);
}

/** Publishing keeps the first publication date; withdrawing keeps the listing and its slug readable. */
export async function setListingStatus(
  db: Db,
  target: { companyId: string; slug: string; mediaBaseUrl: string },
  status: 'published' | 'withdrawn',
  now: Date,
) {
  const changed = await changeListing(db, target.companyId, target.slug, {
    status,
    updated_at: stamp,
    published_at: status === 'published' ? sql`coalesce(l.published_at, ${now}::timestamptz)` : sql`l.published_at`,
  });
  if (!changed) return explainMiss(db, target.companyId, target.slug);
  await rendered(db, target.mediaBaseUrl, changed);
  return { id: changed.id, slug: changed.slug_en, status: changed.status };
}

/** The portals the listing is kept out of, after the change: `true` takes a portal back in, `false` leaves it out. */
function portalsOff(change: Partial<Record<Portal, boolean>>): RawBuilder<string[]> {
  let off: RawBuilder<string[]> = sql<string[]>`l.portals_off`;
  for (const portal of portals) {
    const value = change[portal];
    if (value === undefined) continue;
    const without = sql<string[]>`array_remove(${off}, ${portal}::text)`;
    off = value ? without : sql<string[]>`array_append(${without}, ${portal}::text)`;
  }
  return off;
}

/**
 * The listing's advertising: its permit (null removes it; one whose last day has passed in the company's zone is
 * written as expired), its agent (a team profile of the company, or null), the portals it goes to.
 */
export async function setListingAdvertising(
  db: Db,
  target: { companyId: string; slug: string; mediaBaseUrl: string },
  input: z.infer<typeof ListingAdvertisingInput>,
  now: Date,
) {
  const { permit, agent_id: agentId, portals: portalChange } = input;
  const set: Record<string, unknown> = { updated_at: stamp };
  if (permit !== undefined) {
    set.permit_number = permit?.number ?? null;
    set.permit_authority = permit?.authority ?? null;
    set.permit_expires_on = permit?.expires_on ?? null;
    set.permit_url = permit?.verification_url ?? null;
    set.permit_expired = permit
      ? sql<boolean>`${permit.expires_on}::date < (${now}::timestamptz at time zone c.time_zone)::date`
      : false;
  }
  if (agentId !== undefined) set.agent_id = agentId;
  if (portalChange) set.portals_off = portalsOff(portalChange);
  const guard =
    typeof agentId === 'string'
      ? sql<boolean>`exists (select from team_profiles t where t.id = ${agentId}::uuid and t.company_id = l.company_id)`
      : undefined;
  const changed = await changeListing(db, target.companyId, target.slug, set, guard);
  if (!changed) return explainMiss(db, target.companyId, target.slug, agentId);
  await rendered(db, target.mediaBaseUrl, changed);
  return { id: changed.id, slug: changed.slug_en, ...changed.advertising };
}

export type ListingAdvertising = Awaited<ReturnType<typeof setListingAdvertising>>;
