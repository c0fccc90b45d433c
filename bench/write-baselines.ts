/**
 * Each benched write's own bare baseline (issue 39): the rows one request of the write stored, captured from the
 * database, then written again by ONE statement per request (a bare route of the bench's server, bench/server.ts):
 * the same rows in the same tables, with their indexes and triggers as they are, in one round trip, with no check,
 * no read and no application code in front.
 *
 * The capture: a repeatable-read transaction holds a snapshot taken before the request; after it, every table's rows
 * whose version that snapshot cannot see are the request's (inserted when the snapshot has no row of their key,
 * updated otherwise: their changed columns). Rows a request deletes are counted but not written again (see `deleted`).
 */
import pg from 'pg';
import { baselineValues, type WriteBaseline } from './write-values';

export type { WriteBaseline } from './write-values';

type Row = Record<string, unknown>;
/** A table the write touched: its rows inserted, and its rows updated (their key and changed columns). */
type Touched = {
  table: string;
  key: string[];
  /** Columns a statement may name (generated and identity columns left to the table). */
  columns: string[];
  inserted: Row[];
  updated: Array<{ before: Row; after: Row; changed: string[] }>;
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

type Catalogue = Map<
  string,
  {
    key: string[];
    columns: string[];
    unique: Set<string>;
    /** Columns that a unique index holds alone (a reference): a copied row always needs another value there. */
    alone: Set<string>;
    excluded: Set<string>;
    foreign: Set<string>;
    /** Unique indexes of plain columns only (their predicate, for ON CONFLICT). */
    indexes: Array<{ columns: string[]; predicate: string | null }>;
    /** The columns of each check constraint (an update aimed at another row keeps the checked columns' values). */
    checks: string[][];
    company: boolean;
  }
>;

async function catalogue(client: pg.Client): Promise<Catalogue> {
  const { rows } = await client.query<{
    table: string;
    key: string[] | null;
    columns: string[];
    unique: string[] | null;
    excluded: string[] | null;
    foreign: string[] | null;
  }>(`
    select c.relname as table,
      (select array_agg(a.attname::text order by a.attnum) from pg_index i join pg_attribute a
         on a.attrelid = i.indrelid and a.attnum = any(i.indkey) where i.indrelid = c.oid and i.indisprimary) as key,
      (select array_agg(a.attname::text order by a.attnum) from pg_attribute a where a.attrelid = c.oid and a.attnum > 0
         and not a.attisdropped and a.attgenerated = '' and a.attidentity = '') as columns,
      (select array_agg(distinct a.attname::text) from pg_index i join pg_depend d on d.classid = 'pg_class'::regclass
         and d.objid = i.indexrelid and d.refobjsubid > 0
         join pg_attribute a on a.attrelid = c.oid and a.attnum = d.refobjsubid
         where i.indrelid = c.oid and i.indisunique) as unique,
      (select array_agg(distinct a.attname::text) from pg_constraint x join pg_index i on i.indexrelid = x.conindid
         join pg_attribute a on a.attrelid = c.oid and (a.attnum = any(i.indkey) or a.attnum in (select d.refobjsubid
           from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = i.indexrelid))
         where x.conrelid = c.oid and x.contype = 'x') as excluded,
      (select array_agg(distinct a.attname::text) from pg_constraint f join pg_attribute a
         on a.attrelid = c.oid and a.attnum = any(f.conkey) where f.conrelid = c.oid and f.contype = 'f') as foreign
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p')`);
  // Columns of unique indexes made of plain columns (pg_depend records only expressions' columns).
  const plain = await client.query<{ table: string; column: string }>(`
    select c.relname as table, a.attname::text as column from pg_index i join pg_class c on c.oid = i.indrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
    where i.indisunique`);
  const result: Catalogue = new Map();
  for (const r of rows) {
    result.set(r.table, {
      key: r.key ?? [],
      columns: r.columns,
      unique: new Set(r.unique ?? []),
      alone: new Set(),
      excluded: new Set(r.excluded ?? []),
      foreign: new Set(r.foreign ?? []),
      indexes: [],
      checks: [],
      company: r.columns.includes('company_id'),
    });
  }
  for (const p of plain.rows) result.get(p.table)?.unique.add(p.column);
  const single = await client.query<{ table: string; column: string }>(`
    select c.relname as table, a.attname::text as column from pg_index i join pg_class c on c.oid = i.indrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      join pg_attribute a on a.attrelid = c.oid and a.attnum = i.indkey[0]
    where i.indisunique and i.indnatts = 1 and i.indexprs is null and i.indpred is null`);
  for (const p of single.rows) result.get(p.table)?.alone.add(p.column);
  const indexes = await client.query<{ table: string; columns: string[]; predicate: string | null }>(`
    select c.relname as table, pg_get_expr(i.indpred, i.indrelid) as predicate,
      (select array_agg(a.attname::text order by a.attnum) from pg_attribute a
        where a.attrelid = c.oid and a.attnum = any(i.indkey)) as columns
    from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and i.indisunique and not i.indisprimary and i.indexprs is null`);
  for (const x of indexes.rows) result.get(x.table)?.indexes.push({ columns: x.columns, predicate: x.predicate });
  const checks = await client.query<{ table: string; columns: string[] }>(`
    select c.relname as table, (select array_agg(a.attname::text) from pg_attribute a
        where a.attrelid = c.oid and a.attnum = any(x.conkey)) as columns
    from pg_constraint x join pg_class c on c.oid = x.conrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and x.contype = 'c' and x.conkey is not null`);
  for (const x of checks.rows) result.get(x.table)?.checks.push(x.columns);
  return result;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Captures what one request writes: `send` sends it; the rows are read from the database at `url` (the bench's own,
 * on PostgreSQL). Rows other clients write meanwhile would be captured too: the bench's server writes nothing else.
 */
export async function captureWrite(url: string, name: string, send: () => Promise<void>): Promise<WriteBaseline> {
  const before = new pg.Client({ connectionString: url });
  const after = new pg.Client({ connectionString: url });
  await Promise.all([before.connect(), after.connect()]);
  try {
    const tables = await catalogue(after);
    await before.query('begin isolation level repeatable read');
    const snapshot = (await before.query<{ s: string }>('select pg_current_snapshot()::text as s')).rows[0]!.s;
    const counts = new Map<string, number>();
    for (const table of tables.keys()) {
      counts.set(table, Number((await before.query(`select count(*) as n from ${quote(table)}`)).rows[0].n));
    }
    await send();
    const touched: Touched[] = [];
    const summary: string[] = [];
    for (const [table, t] of tables) {
      const { rows } = await after.query<{ row: Row }>(
        `select to_jsonb(r) as row from ${quote(table)} r
          where not pg_visible_in_snapshot(r.xmin::text::xid8, $1::pg_snapshot)`,
        [snapshot],
      );
      const now = Number((await after.query(`select count(*) as n from ${quote(table)}`)).rows[0].n);
      const entry: Touched = { table, key: t.key, columns: t.columns, inserted: [], updated: [] };
      for (const { row } of rows) {
        const where = t.key.map((k, i) => `r.${quote(k)}::text = $${i + 1}`).join(' and ');
        const old = t.key.length
          ? (
              await before.query<{ row: Row }>(
                `select to_jsonb(r) as row from ${quote(table)} r where ${where}`,
                t.key.map((k) => String(row[k])),
              )
            ).rows[0]?.row
          : undefined;
        if (old) {
          const changed = t.columns.filter((c) => !same(old[c], row[c]));
          entry.updated.push({ before: old, after: row, changed });
        } else entry.inserted.push(row);
      }
      const deleted = (counts.get(table) ?? 0) + entry.inserted.length - now;
      if (entry.inserted.length || entry.updated.length) touched.push(entry);
      if (entry.inserted.length || entry.updated.length || deleted) {
        const changed = [...new Set(entry.updated.flatMap((u) => u.changed))];
        summary.push(
          `${table}: ${entry.inserted.length} inserted, ${entry.updated.length} updated${changed.length ? ` (${changed.join(', ')})` : ''}, ${deleted} deleted`,
        );
      }
    }
    await before.query('rollback');
    // A key's `last_used_at` is written at most once a minute per key (lib/keys.ts `touchKey`): the request that
    // wrote it is the key's first, so the baseline leaves it out, as the write's other requests do.
    const used = touched.flatMap((t) => {
      if (t.table !== 'api_keys') return [t];
      const updated = t.updated.filter((u) => u.changed.some((c) => c !== 'last_used_at'));
      if (updated.length < t.updated.length) summary.push('api_keys: last_used_at left out (written once a minute)');
      return t.inserted.length || updated.length ? [{ ...t, updated }] : [];
    });
    const kept = await withoutTriggered(after, (rows) => baselineOf(after, name, rows, tables, []), used, summary);
    return await baselineOf(after, name, kept, tables, summary);
  } finally {
    await Promise.all([before.end(), after.end()]);
  }
}

/**
 * The captured rows less those the triggers of the replayed rows write again (an owner statement's lines when a
 * payment is received, a home's calendar version when a block is written): the baseline's statement is run once in a
 * transaction rolled back, and the rows whose last version a later command of that transaction wrote (`cmin` > 0: the
 * statements of the triggers) are left to the triggers (a table's inserted rows first, then its updated ones, as many
 * as the triggers wrote). A replay a trigger's own insert refuses (a unique key the statement's copy of the row took
 * first) leaves that table's inserted rows to the trigger; one whose own copy of a row is refused (its key holds
 * nothing made new: the row the write stored once) leaves them out.
 */
async function withoutTriggered(
  client: pg.Client,
  build: (touched: Touched[]) => Promise<WriteBaseline>,
  captured: Touched[],
  summary: string[],
): Promise<Touched[]> {
  let touched = captured;
  for (let attempt = 0; attempt < 8; attempt++) {
    const baseline = await build(touched);
    const written = new Map<string, number>();
    await client.query('begin');
    let refused: { table: string; why: string } | undefined;
    try {
      await client.query(baseline.text, [baselineValues(baseline, 0)]);
      for (const t of touched) {
        // The statement is the transaction's first command (0); statements of its triggers come after it.
        const { rows } = await client.query<{ n: string }>(
          `select count(*) as n from ${quote(t.table)} r
            where r.xmin::text::xid8 = pg_current_xact_id() and r.cmin::text::int > 0`,
        );
        written.set(t.table, Number(rows[0]!.n));
      }
    } catch (error) {
      const e = error as { code?: string; table?: string; where?: string };
      // A unique key of a table the baseline inserts into: raised inside a trigger's function (its context names a
      // statement of it), or by the statement's own copy of a row whose key holds nothing made new (an owner's statement
      // of a month, which the write stored once: the next requests of the write find it).
      if (e.code !== '23505' || !e.table || !touched.some((t) => t.table === e.table && t.inserted.length)) throw error;
      refused = e.where
        ? { table: e.table, why: 'written by a trigger of the replayed rows (left to it)' }
        : { table: e.table, why: 'its key names the stored row again (left out: stored once)' };
    } finally {
      await client.query('rollback');
    }
    if (refused) {
      const { table, why } = refused;
      summary.push(`${table}: ${why}`);
      touched = touched.flatMap((t) => (t.table !== table ? [t] : t.updated.length ? [{ ...t, inserted: [] }] : []));
      continue;
    }
    return touched.flatMap((t) => {
      const named = t.inserted.length + t.updated.length;
      const extra = Math.min(written.get(t.table) ?? 0, named);
      if (extra <= 0) return [t];
      summary.push(`${t.table}: ${extra} written by a trigger of the replayed rows (left to it)`);
      const inserted = t.inserted.slice(0, Math.max(0, t.inserted.length - extra));
      const updated = t.updated.slice(0, Math.max(0, t.updated.length - Math.max(0, extra - t.inserted.length)));
      return inserted.length || updated.length ? [{ ...t, inserted, updated }] : [];
    });
  }
  throw new Error('the replay of the captured rows kept failing');
}

/**
 * A date or a time: beside a new key in a key or a unique index of several columns (a rent payment's due day on its new
 * lease) it is kept, as its digits made new would be no date ("0292-50-74"), and the same text may be a date elsewhere
 * in the rows.
 */
const isDate = (value: string) => /^\d{4}-\d{2}-\d{2}([ T]|$)/.test(value);

/** Rows of each updated table (same company as the captured row) for the baseline's updates to take in turn. */
const TARGETS = 2000;

async function baselineOf(
  client: pg.Client,
  name: string,
  touched: Touched[],
  tables: Catalogue,
  summary: string[],
): Promise<WriteBaseline> {
  const ctes: string[] = [];
  const rows: Row[][] = [];
  const targets: Row[][] = [];
  const shift: string[][] = [];
  const fresh = new Set<string>();
  for (const t of touched) {
    const info = tables.get(t.table)!;
    if (t.inserted.length) {
      const step = rows.length;
      rows.push(t.inserted);
      targets.push([]);
      shift.push([...info.excluded].filter((c) => t.inserted.every((row) => /^\d{4}-\d{2}-\d{2}$/.test(String(row[c])))));
      const columns = t.columns.map(quote).join(', ');
      // A unique index on other rows' keys alone (a job's one calendar block) takes the row again each time: the new
      // row replaces the old one, as the write's next request of the same record does.
      const bound = info.indexes.find((x) =>
        x.columns.every((c) => info.foreign.has(c) && t.inserted.every((row) => row[c] !== null)),
      );
      const replace = bound
        ? ` on conflict (${bound.columns.map(quote).join(', ')})${bound.predicate ? ` where ${bound.predicate}` : ''} do update set ${t.columns
            .filter((c) => !bound.columns.includes(c) && !t.key.includes(c))
            .map((c) => `${quote(c)} = excluded.${quote(c)}`)
            .join(', ')}`
        : '';
      ctes.push(
        `w${step} as (insert into ${quote(t.table)} (${columns}) select ${columns} from jsonb_populate_recordset(null::${quote(t.table)}, $1::jsonb -> ${step})${replace})`,
      );
      for (const row of t.inserted) {
        // The row's own key (a key column naming another row, as a company's id, is kept; so is a word of a key of
        // several columns, as a source's name: only values with a digit or an @). A key of one column is always made
        // new: an event's id may hold no digit.
        for (const k of t.key) {
          const value = row[k];
          if (typeof value !== 'string' || info.foreign.has(k)) continue;
          if (t.key.length > 1 && isDate(value)) continue;
          if (t.key.length === 1 || /[0-9@]/.test(value)) fresh.add(value);
        }
        for (const c of info.unique) {
          const value = row[c];
          // Uuids of unique indexes that are not the row's key name existing rows (a company, a listing): kept.
          // A word (a kind, a status) is kept too: only values with a digit or an @ (references, emails, hashes), and
          // every value of a column a unique index holds alone (a reference of letters only, `P-QZGSMNENHZ`).
          if (typeof value !== 'string' || /^[0-9a-f-]{36}$/.test(value)) continue;
          if (isDate(value) && !info.alone.has(c)) continue;
          if (/[0-9@]/.test(value) || info.alone.has(c)) fresh.add(value);
        }
      }
    }
    const changed = [...new Set(t.updated.flatMap((u) => u.changed))];
    if (t.updated.length && changed.length && t.key.length) {
      const step = rows.length;
      rows.push(t.updated.map((u) => Object.fromEntries([...t.key, ...changed].map((c) => [c, u.after[c]]))));
      const first = t.updated[0]!.before;
      // Rows of the same company in the state the captured row was in (its changed columns' values before), the
      // last by key (the write's own inputs are taken from the first: bench/lease-writes.ts).
      // With them, the unchanged columns a check constraint reads with a changed one (a payment's amount, which its
      // tax split must add up to), so the captured values still pass the checks on the target.
      const checked = info.checks
        .filter((columns) => columns.some((c) => changed.includes(c)))
        .flatMap((columns) => columns.filter((c) => !changed.includes(c)));
      // A time (a sync's last time) is no state: every other row has another.
      const timed = (c: string) => typeof first[c] === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(first[c] as string);
      // Several rows of one parent updated together (a calendar import's 50 blocks): the targets are other parents'
      // rows, as many each, ordered by parent so that each request takes one parent's rows (never two requests the
      // same row in another order); their state is not asked (each of those rows has other dates).
      const parent =
        t.updated.length > 1
          ? [...info.foreign].find((c) => c !== 'company_id' && t.updated.every((u) => same(u.before[c], first[c])))
          : undefined;
      const state = parent
        ? checked
        : [...new Set([...changed.filter((c) => !['version', 'updated_at'].includes(c) && !timed(c)), ...checked])];
      const params: unknown[] = [];
      const where: string[] = [];
      if (info.company && first.company_id) where.push(`company_id = $${params.push(first.company_id)}::uuid`);
      for (const c of state) {
        where.push(
          first[c] === null ? `${quote(c)} is null` : `to_jsonb(${quote(c)}) = $${params.push(JSON.stringify(first[c]))}::jsonb`,
        );
      }
      if (parent) {
        where.push(
          `${quote(parent)} in (select ${quote(parent)} from ${quote(t.table)} group by 1 having count(*) = ${t.updated.length})`,
        );
      }
      const keys = [...(parent ? [parent] : []), ...t.key].map((k) => `${quote(k)} desc`).join(', ');
      const most = parent ? Math.floor(TARGETS / t.updated.length) * t.updated.length : TARGETS;
      const { rows: others } = await client.query<Row>(
        `select ${t.key.map(quote).join(', ')} from ${quote(t.table)} ${where.length ? `where ${where.join(' and ')}` : ''}
          order by ${keys} limit ${most}`,
        params,
      );
      if (!others.length) others.push(Object.fromEntries(t.key.map((k) => [k, first[k]])));
      targets.push(others);
      shift.push([]);
      const set = changed.map((c) => `${quote(c)} = v.${quote(c)}`).join(', ');
      const match = t.key.map((k) => `t.${quote(k)} = v.${quote(k)}`).join(' and ');
      ctes.push(
        `w${step} as (update ${quote(t.table)} t set ${set} from jsonb_populate_recordset(null::${quote(t.table)}, $1::jsonb -> ${step}) v where ${match})`,
      );
    }
  }
  // An inserted row naming the captured row of an update step (by its one-column key) follows that step's targets.
  const links: WriteBaseline['links'] = [];
  rows.forEach((stepRows, step) => {
    if (targets[step]?.length) return;
    for (const column of Object.keys(stepRows[0] ?? {})) {
      targets.forEach((others, from) => {
        const key = Object.keys(others[0] ?? {});
        if (from === step || key.length !== 1 || !others.length) return;
        const captured = rows[from]![0]![key[0]!];
        if (stepRows.every((row) => row[column] === captured)) links.push({ step, column, from, key: key[0]! });
      });
    }
  });
  const text = ctes.length ? `with ${ctes.join(',\n')}\nselect 1 as written` : 'select 1 as written';
  return { name, text, rows, fresh: [...fresh], targets, links, shift, summary };
}
