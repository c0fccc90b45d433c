import { sql } from 'kysely';
import { sha256 } from '../../lib/crypto';
import type { Executor } from '../../lib/db/index';
import type { Company } from '../../schema/platform/db';
import { type PublishedQuery, selectListingRecord } from './listings';
import { type ListingRecord, type Presenter, presenter, presenterInputs } from './listings.present';

/**
 * Render on write (migration 0017, docs/api-reference.md "Rendered listings"): each listing's public forms are
 * stored as JSON text in `listing_renders`, tagged with what they were rendered for, so a public read selects
 * them with its keyset columns in one query and concatenates them. The catalogue's write paths render in their
 * own transaction; a form that is missing or stale when read (written by another path, or rendered for other
 * settings or another media base URL) is rendered by the read and stored: the fill heals itself.
 */

/**
 * Bump when the presenter's output changes for the same rows and inputs: every stored form is then stale. 2: the
 * listing's advertising permit (issue 25).
 */
export const renderFormat = 2;

export const renderedForms = ['card', 'detail', 'map_point', 'map_cover', 'sitemap'] as const;
export type RenderedForm = (typeof renderedForms)[number];
/** A listing's forms as JSON text; null where the listing has no such form (a draft, a listing without a point). */
export type Rendered = Record<RenderedForm, string | null>;

/** The company and deployment a render is for, and its tag: the stored `rendered_for` a form must carry to be used. */
export type RenderContext = { company: Company; mediaBaseUrl: string; tag: string; present: Presenter };

const contexts = new WeakMap<Company, RenderContext>();

/**
 * The render context of a company row (kept per row object, which the company cache shares between requests).
 * The tag is a digest of the format and of every input the presenter reads besides the listing's own rows
 * (`presenterInputs`: currency, hidden prices, media base URL, path pattern, site URL), so a change to any of
 * them, by whatever path, makes the stored forms stale without a trigger.
 */
export async function renderContext(company: Company, mediaBaseUrl: string): Promise<RenderContext> {
  const known = contexts.get(company);
  if (known?.mediaBaseUrl === mediaBaseUrl) return known;
  const digest = await sha256(JSON.stringify([renderFormat, presenterInputs(company, mediaBaseUrl)]));
  const tag = Array.from(digest.subarray(0, 12), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const context = { company, mediaBaseUrl, tag, present: presenter(company, mediaBaseUrl) };
  contexts.set(company, context);
  return context;
}

type RenderRow = ListingRecord & { status: 'draft' | 'published' | 'withdrawn' };

/** A listing's public forms, serialised as the routes send them. */
export function renderListing(present: Presenter, row: RenderRow): Rendered {
  const published = row.status === 'published';
  const json = (value: unknown) => (published ? JSON.stringify(value) : null);
  const mapped = row.latitude !== null && row.longitude !== null;
  return {
    card: json(present.summary(row)),
    detail: row.status === 'withdrawn' ? JSON.stringify(present.withdrawn(row)) : json(present.detail(row)),
    map_point: mapped ? json(present.mapPoint(row, false)) : null,
    map_cover: mapped ? json(present.mapPoint(row, true)) : null,
    sitemap: json(present.sitemapEntry(row)),
  };
}

/** A listing's rows as a render reads them, with the revision of its forms read in the same statement. */
export type RenderSource = RenderRow & { revision: string | null };

/** The rows of the company's listings `ids` as `executor` sees them now, each with its forms' revision. */
export async function renderSources(executor: Executor, context: RenderContext, ids: readonly string[]): Promise<RenderSource[]> {
  if (ids.length === 0) return [];
  const rows = await selectListingRecord(
    executor.selectFrom('listings as l').where('l.company_id', '=', context.company.id).where('l.id', 'in', ids),
    { description: true, photos: 'all' },
  )
    .select((eb) => [
      'l.status',
      eb
        .selectFrom('listing_renders as r')
        .select(sql<string>`r.revision::text`.as('revision'))
        .whereRef('r.listing_id', '=', 'l.id')
        .as('revision'),
    ])
    .execute();
  return rows as unknown as RenderSource[];
}

/**
 * Renders listings from their rows and stores the forms, each only if its revision is still the one read with the
 * rows (a change committed meanwhile wins: its forms stay stale) and its row is not locked by another transaction
 * (a read never waits on a writer: it sends what it rendered and stores nothing). In a writing transaction the
 * rows are its own, so every form is stored. Returns the forms by listing id.
 */
export async function renderAndStore(executor: Executor, context: RenderContext, sources: readonly RenderSource[]) {
  const rendered = new Map<string, Rendered>();
  const stored: Array<Rendered & { listing_id: string; revision: string }> = [];
  for (const source of sources) {
    const forms = renderListing(context.present, source);
    rendered.set(source.id, forms);
    if (source.revision !== null) stored.push({ listing_id: source.id, revision: source.revision, ...forms });
  }
  if (stored.length > 0) await storeRenders(executor, context.tag, stored);
  return rendered;
}

/** Renders the company's listings `ids` as `executor` sees them and stores their forms ({@link renderAndStore}). */
export async function renderListings(executor: Executor, context: RenderContext, ids: readonly string[]) {
  return renderAndStore(executor, context, await renderSources(executor, context, ids));
}

/**
 * The rows free now are locked bare (skip locked: a row another transaction holds is left alone); the update then
 * writes those whose revision is still the one rendered (a change committed meanwhile is re-checked by the update).
 */
async function storeRenders(executor: Executor, tag: string, stored: Array<Rendered & { listing_id: string; revision: string }>) {
  await sql`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(stored)}::jsonb)
        as v(listing_id uuid, revision bigint, card text, detail text, map_point text, map_cover text, sitemap text)
    ), free as (
      select listing_id from listing_renders where listing_id = any (${stored.map((s) => s.listing_id)}::uuid[])
         for update skip locked
    )
    update listing_renders r
       set rendered_for = ${tag}, card = v.card, detail = v.detail, map_point = v.map_point, map_cover = v.map_cover,
           sitemap = v.sitemap
      from v join free on free.listing_id = v.listing_id
     where r.listing_id = v.listing_id and r.revision = v.revision`.execute(executor);
}

/** Listings per render statement of {@link renderStale}. */
const renderBatchSize = 500;

/**
 * Renders every listing of the company (drafts aside) whose forms are stale or were rendered for other inputs:
 * what a catalogue write leaves behind beyond the listings it wrote (a place renamed, settings changed since).
 */
export async function renderStale(executor: Executor, context: RenderContext): Promise<number> {
  let done = 0;
  for (let after = ''; ; ) {
    const page = await executor
      .selectFrom('listings as l')
      .innerJoin('listing_renders as r', 'r.listing_id', 'l.id')
      .select('l.id')
      .where('l.company_id', '=', context.company.id)
      .where('l.status', '<>', 'draft')
      .where((eb) => eb.or([eb('r.rendered_for', 'is', null), eb('r.rendered_for', '<>', context.tag)]))
      .$if(after !== '', (qb) => qb.where('l.id', '>', after))
      .orderBy('l.id')
      .limit(renderBatchSize)
      .execute();
    if (page.length === 0) return done;
    await renderListings(
      executor,
      context,
      page.map((row) => row.id),
    );
    done += page.length;
    after = page[page.length - 1]!.id;
  }
}

/**
 * The listings of `query` with their stored `form` as `body`: null where it is missing or was rendered for other
 * inputs than `context`'s ({@link bodiesOf} fills those). The form is a subquery by primary key, run for the rows
 * the page returns only: as a join, a company whose tag few stored forms carry (a small company beside a large
 * one) had the planner scan every company's forms for it (3.8 ms at 100,000 listings, growing with the table).
 */
export function withStoredForm<F extends RenderedForm>(query: PublishedQuery, context: RenderContext, form: F) {
  return query.select((eb) => [
    'l.id',
    eb
      .selectFrom('listing_renders as r')
      .select(sql<string | null>`${sql.ref(`r.${form}`)}`.as('form'))
      .whereRef('r.listing_id', '=', 'l.id')
      .where('r.rendered_for', '=', context.tag)
      .as('body'),
  ]);
}

/**
 * The bodies of a page's rows: the stored form where it was rendered for `context`, otherwise rendered now and
 * stored. A listing gone or changed since the page was read (no such form any more) is left out.
 */
export async function bodiesOf(
  executor: Executor,
  context: RenderContext,
  rows: ReadonlyArray<{ id: string; body: string | null }>,
  form: RenderedForm,
): Promise<string[]> {
  const missing = rows.filter((row) => row.body === null).map((row) => row.id);
  if (missing.length === 0) return rows.map((row) => row.body as string);
  const rendered = await renderListings(executor, context, missing);
  return rows.flatMap((row) => {
    const body = row.body ?? rendered.get(row.id)?.[form] ?? null;
    return body === null ? [] : [body];
  });
}

/** A list answer from stored JSON texts: exactly what `c.json({ results, next_cursor })` sends. */
export function listBody(bodies: readonly string[], nextCursor: string | null): string {
  return `{"results":[${bodies.join(',')}],"next_cursor":${JSON.stringify(nextCursor)}}`;
}
