import { type RawBuilder, sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { sha256 } from '../../lib/crypto';
import type { Executor } from '../../lib/db/index';
import type { Company } from '../../schema/platform/db';
import type { PublishedQuery } from '../../lib/listing-filters';
import { selectListingRecord } from './listings';
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
 * listing's advertising permit (issue 25). 3: prices with their currency's own digits (lib/money.ts, migration 0035).
 */
export const renderFormat = 3;

export const renderedForms = ['card', 'detail', 'map_point', 'map_cover', 'sitemap'] as const;
export type RenderedForm = (typeof renderedForms)[number];
/** A listing's forms as JSON text; null where the listing has no such form (a draft, a listing without a point). */
export type Rendered = Record<RenderedForm, string | null>;

/** The company and deployment a render is for, and its tag: the stored `rendered_for` a form must carry to be used. */
export type RenderContext = {
  company: Company;
  mediaBaseUrl: string;
  tag: string;
  present: Presenter;
  /** The forms kept in this process (or isolate), null when `CATALOGUE_FORMS_CACHE_MB` is 0. */
  memory: FormsMemory | null;
};

const contexts = new WeakMap<Company, RenderContext>();

/**
 * Forms kept in memory by listing, form and revision, as UTF-8 bytes (issue 28): a page whose forms this process
 * holds selects each row's revision only, not its JSON text, and is concatenated from bytes, so neither the
 * database nor this process moves, decodes or encodes the forms again. A form is kept only as a read saw it
 * committed (stored, or rendered from rows read in one statement with their revision), never from a writing
 * transaction, which may roll back after rendering a revision another change will commit with other content. A
 * listing's revision is bumped by every change its forms depend on (migration 0017) and the tag names every other
 * input, so an entry whose revision and tag are those of the row now is the stored form, byte for byte. Bounded by
 * bytes (LRU); one per process.
 */
export type FormsMemory = {
  forms: LRUCache<string, { revision: string; tag: string; bytes: Uint8Array }>;
  /** Companies (id and tag) and forms of which this memory has held an entry: their pages select revisions only. */
  warm: Set<string>;
};

let memoryOf: { megabytes: number; memory: FormsMemory } | undefined;
/** The process's forms memory for a bound of `megabytes` (0: none). */
function formsMemory(megabytes: number): FormsMemory | null {
  if (megabytes <= 0) return null;
  if (memoryOf?.megabytes !== megabytes) {
    const forms = new LRUCache<string, { revision: string; tag: string; bytes: Uint8Array }>({
      maxSize: megabytes * 1024 * 1024,
      sizeCalculation: (entry, key) => entry.bytes.byteLength + key.length + entry.revision.length + 64,
    });
    memoryOf = { megabytes, memory: { forms, warm: new Set() } };
  }
  return memoryOf.memory;
}

const utf8 = new TextEncoder();
const formKey = (listingId: string, form: RenderedForm) => `${listingId} ${form}`;
const warmKey = (context: RenderContext, form: RenderedForm) => `${context.company.id} ${context.tag} ${form}`;

/** Keeps forms a read saw committed (`revision` is the row's as read with them). */
function remember(
  context: RenderContext,
  form: RenderedForm,
  kept: ReadonlyArray<{ id: string; revision: string; text: string }>,
) {
  const memory = context.memory;
  if (!memory || kept.length === 0) return;
  if (memory.warm.size >= 10_000) memory.warm.clear();
  memory.warm.add(warmKey(context, form));
  for (const { id, revision, text } of kept)
    memory.forms.set(formKey(id, form), { revision, tag: context.tag, bytes: utf8.encode(text) });
}

/**
 * The render context of a company row (kept per row object, which the company cache shares between requests).
 * The tag is a digest of the format and of every input the presenter reads besides the listing's own rows
 * (`presenterInputs`: currency, hidden prices, media base URL, path pattern, site URL), so a change to any of
 * them, by whatever path, makes the stored forms stale without a trigger.
 */
export async function renderContext(company: Company, mediaBaseUrl: string, formsMegabytes = 0): Promise<RenderContext> {
  const known = contexts.get(company);
  const memory = formsMemory(formsMegabytes);
  if (known?.mediaBaseUrl === mediaBaseUrl) return known.memory === memory ? known : { ...known, memory };
  const digest = await sha256(JSON.stringify([renderFormat, presenterInputs(company, mediaBaseUrl)]));
  const tag = Array.from(digest.subarray(0, 12), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const context: RenderContext = { company, mediaBaseUrl, tag, present: presenter(company, mediaBaseUrl), memory };
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
    executor
      .selectFrom('listings as l')
      .where('l.company_id', '=', context.company.id)
      // One text whatever the number of ids (`= any` of one array): the same named statement each time.
      .where(sql<boolean>`l.id = any(${ids}::uuid[])`),
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
 * The listings of `query` with the `revision` of their stored `form` (null where it is missing or was rendered for
 * other inputs than `context`'s) and, unless this process holds the company's forms ({@link FormsMemory}), the form
 * itself as `body` ({@link bodiesOf} fills the rest). Each is a subquery by primary key, run for the rows the page
 * returns only: as a join, a company whose tag few stored forms carry (a small company beside a large one) had the
 * planner scan every company's forms for it (3.8 ms at 100,000 listings, growing with the table).
 */
export function withStoredForm<F extends RenderedForm>(query: PublishedQuery, context: RenderContext, form: F) {
  const withBody = !context.memory?.warm.has(warmKey(context, form));
  return query.select((eb) => {
    // The row's stored form, or its revision, where it was rendered for this context.
    const stored = (value: RawBuilder<string | null>) =>
      eb
        .selectFrom('listing_renders as r')
        .select(value.as('value'))
        .whereRef('r.listing_id', '=', 'l.id')
        .where('r.rendered_for', '=', context.tag);
    return [
      'l.id',
      stored(sql`r.revision::text`).as('revision'),
      (withBody ? stored(sql`${sql.ref(`r.${form}`)}`) : sql<string | null>`null::text`).as('body'),
    ];
  });
}

/**
 * The bodies of a page's rows, as UTF-8 bytes: the form held in memory at the row's revision, else the stored one
 * (read with the page, or by one more statement for the rows memory lacks), else rendered now and stored. Every
 * form a read saw committed is kept in memory. A listing gone or changed since the page was read (no such form any
 * more) is left out. `members`: a JSON member to add to a row's form, by listing id (`"distance_km":1.25`).
 */
export async function bodiesOf(
  executor: Executor,
  context: RenderContext,
  rows: ReadonlyArray<{ id: string; revision: string | null; body: string | null }>,
  form: RenderedForm,
  members?: ReadonlyMap<string, string>,
): Promise<Uint8Array[]> {
  const memory = context.memory;
  const bodies = new Map<string, Uint8Array>();
  const read: Array<{ id: string; revision: string; text: string }> = [];
  const unread: string[] = [];
  const stale: string[] = [];
  for (const row of rows) {
    if (row.revision === null) {
      stale.push(row.id);
      continue;
    }
    const kept = memory?.forms.get(formKey(row.id, form));
    if (kept && kept.revision === row.revision && kept.tag === context.tag) bodies.set(row.id, kept.bytes);
    else if (row.body !== null) read.push({ id: row.id, revision: row.revision, text: row.body });
    else unread.push(row.id);
  }
  if (unread.length > 0) {
    const fetched = await executor
      .selectFrom('listing_renders as r')
      .select([
        'r.listing_id as id',
        sql<string>`r.revision::text`.as('revision'),
        sql<string | null>`${sql.ref(`r.${form}`)}`.as('text'),
      ])
      .where(sql<boolean>`r.listing_id = any(${unread}::uuid[])`)
      .where('r.rendered_for', '=', context.tag)
      .execute();
    const found = new Set<string>();
    for (const row of fetched) {
      found.add(row.id);
      if (row.text !== null) read.push({ id: row.id, revision: row.revision, text: row.text });
    }
    // Changed since the page was read: rendered as it is now.
    for (const id of unread) if (!found.has(id)) stale.push(id);
  }
  if (stale.length > 0) {
    const sources = await renderSources(executor, context, stale);
    const rendered = await renderAndStore(executor, context, sources);
    for (const source of sources) {
      const text = rendered.get(source.id)?.[form];
      if (text !== null && text !== undefined && source.revision !== null)
        read.push({ id: source.id, revision: source.revision, text });
      else if (text !== null && text !== undefined) bodies.set(source.id, utf8.encode(text));
    }
  }
  remember(context, form, read);
  for (const { id, text } of read)
    if (!bodies.has(id)) bodies.set(id, memory?.forms.get(formKey(id, form))?.bytes ?? utf8.encode(text));
  return rows.flatMap((row) => {
    const body = bodies.get(row.id);
    if (body === undefined) return [];
    const member = members?.get(row.id);
    return member === undefined ? [body] : [withMember(body, member)];
  });
}

/** A stored form (a JSON object's bytes) with one more member before its closing brace (a search's `distance_km`). */
function withMember(body: Uint8Array, member: string): Uint8Array {
  const tail = utf8.encode(`,${member}}`);
  const out = new Uint8Array(body.length - 1 + tail.length);
  out.set(body.subarray(0, body.length - 1), 0);
  out.set(tail, body.length - 1);
  return out;
}

const listHead = utf8.encode('{"results":[');
const comma = utf8.encode(',');

/**
 * A list answer from stored JSON forms: exactly the bytes of `c.json({ results, next_cursor })`; `member`, a JSON
 * member to add after them (a search's `"facets":{…}`).
 */
export function listBody(bodies: readonly Uint8Array[], nextCursor: string | null, member?: string): Uint8Array {
  const tail = utf8.encode(`],"next_cursor":${JSON.stringify(nextCursor)}${member === undefined ? '' : `,${member}`}}`);
  let length = listHead.length + tail.length + Math.max(0, bodies.length - 1);
  for (const body of bodies) length += body.length;
  const out = new Uint8Array(length);
  out.set(listHead, 0);
  let at = listHead.length;
  bodies.forEach((body, i) => {
    if (i > 0) out.set(comma, at++);
    out.set(body, at);
    at += body.length;
  });
  out.set(tail, at);
  return out;
}
