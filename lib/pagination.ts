import { type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { ApiError } from './errors';

/**
 * Keyset pagination. A sort is an ordered list of NOT NULL columns ending in a unique one; the cursor
 * holds the last row's values of those columns, read as text so timestamps keep their microseconds.
 */
export type KeysetColumn = {
  ref: string;
  direction: 'asc' | 'desc';
  type: keyof typeof valuePatterns;
  /** An expression to order by instead of the column `ref` (a search's relevance); `ref` then only names it. */
  expression?: RawBuilder<unknown>;
};

/** What each column type's text form looks like, so a forged cursor is refused before it reaches SQL. */
const valuePatterns = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  bool: /^(true|false)$/,
  int: /^-?\d{1,9}$/,
  bigint: /^-?\d{1,18}$/,
  // Timestamps travel as microseconds since the epoch: exact, and checkable without parsing dates.
  timestamptz: /^-?\d{1,18}$/,
  text: /^[\s\S]{0,500}$/,
  // A float8's shortest exact text (PostgreSQL 12 and later), as a search's tie is: compared exactly.
  float: /^-?(\d{1,20}(\.\d{1,20})?(e[+-]?\d{1,3})?|Infinity|NaN)$/,
  // A float4's (pg_trgm's distances are `real`): compared as a real, so its text gives back the same value.
  real: /^-?(\d{1,20}(\.\d{1,20})?(e[+-]?\d{1,3})?|Infinity|NaN)$/,
} as const;
export type KeysetSort = { readonly name: string; readonly columns: readonly KeysetColumn[] };

/** PostgreSQL's earliest timestamp (4714-11-24 BC), in microseconds since 1970: a cursor's time before it is forged. */
const earliestMicros = -210866803200000000n;

/** The largest finite `real` (float4); PostgreSQL refuses a text beyond it, and one that rounds a non-zero to 0. */
const realMax = 3.4028234663852886e38;
const realLeast = 1.401298464324817e-45;

/**
 * Whether PostgreSQL takes a cursor value's text as its type: a number it would refuse as out of range (`1e999`, or
 * `1e-400`, which is not 0 and rounds to it; a time before its first day) is a forged cursor, not a 500.
 */
function inRange(type: KeysetColumn['type'], value: string): boolean {
  if (type === 'timestamptz') return BigInt(value) >= earliestMicros;
  if (type !== 'float' && type !== 'real') return true;
  if (/^-?Infinity$|^NaN$/.test(value)) return true;
  const x = Number(value);
  const zero = !/[1-9]/.test(value.replace(/e.*$/i, ''));
  if (zero) return true;
  if (type === 'float') return Number.isFinite(x) && x !== 0;
  return Math.abs(x) <= realMax && Math.abs(x) >= realLeast / 2;
}

export function encodeCursor(sort: KeysetSort, values: string[]): string {
  return Buffer.from(JSON.stringify([sort.name, ...values])).toString('base64url');
}

export function decodeCursor(sort: KeysetSort, cursor: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed[0] !== sort.name ||
    parsed.length !== sort.columns.length + 1 ||
    !parsed
      .slice(1)
      .every((v, i) => typeof v === 'string' && valuePatterns[sort.columns[i]!.type].test(v) && inRange(sort.columns[i]!.type, v))
  ) {
    throw new ApiError('invalid_cursor', 'The cursor is not one this list gave out (or the sort changed).', {
      errors: [{ path: 'cursor', code: 'invalid_cursor', message: 'Pass next_cursor from the previous page as it is.' }],
    });
  }
  return parsed.slice(1) as string[];
}

function keyValue(column: KeysetColumn, value: string) {
  if (column.type === 'float') return sql`${value}::float8`;
  if (column.type === 'real') return sql`${value}::real`;
  return column.type === 'timestamptz' ? sql`timestamptz 'epoch' + ${value}::bigint * interval '1 microsecond'` : value;
}

/** The column, or the expression it stands for. */
function keyRef(column: KeysetColumn) {
  return column.expression ?? sql.ref(column.ref);
}

function keyText(column: KeysetColumn) {
  return column.type === 'timestamptz'
    ? sql<string>`(extract(epoch from ${keyRef(column)}) * 1000000)::bigint::text`
    : sql<string>`(${keyRef(column)})::text`;
}

/**
 * The rows after the cursor. When every column runs the same way (every sort today) it is one row-value
 * comparison, `(a, b, c) > (x, y, z)` (or `<` for descending), which PostgreSQL hands to a B-tree index on the
 * full order as one start key: the scan begins at the cursor and reads nothing before it, however deep the page.
 * Mixed directions fall back to the expanded form `a >= x AND (a > x OR (a = x AND (b > y OR …)))`, where only
 * the leading column's bound starts the scan.
 */
// biome-ignore lint/suspicious/noExplicitAny: the expression builder is shared by every table
function after(eb: ExpressionBuilder<any, any>, columns: readonly KeysetColumn[], values: string[]) {
  const [first] = columns as [KeysetColumn];
  const beyond = (column: KeysetColumn) => (column.direction === 'asc' ? '>' : '<');
  if (columns.every((column) => column.direction === first.direction)) {
    const refs = sql.join(columns.map((column) => keyRef(column)));
    const cursor = sql.join(columns.map((column, i) => keyValue(column, values[i]!)));
    return sql<boolean>`(${refs}) ${sql.raw(beyond(first))} (${cursor})`;
  }
  const disjuncts = columns.map((column, i) => {
    const equalities = columns.slice(0, i).map((prev, j) => eb(keyRef(prev), '=', keyValue(prev, values[j]!)));
    return eb.and([...equalities, eb(keyRef(column), beyond(column), keyValue(column, values[i]!))]);
  });
  const bound = eb(keyRef(first), first.direction === 'asc' ? '>=' : '<=', keyValue(first, values[0]!));
  return eb.and([bound, eb.or(disjuncts)]);
}

/**
 * Applies sort, cursor and limit (one extra row tells whether a next page exists). Selected key values
 * come back as `_k0`, `_k1`, … for {@link pageOf}.
 */
// biome-ignore lint/suspicious/noExplicitAny: generic over every table's query builder
export function paginate<QB extends SelectQueryBuilder<any, any, any>>(
  qb: QB,
  sort: KeysetSort,
  page: { page_size: number; cursor?: string },
): QB {
  let query = qb;
  sort.columns.forEach((column, i) => {
    query = query.select(keyText(column).as(`_k${i}`)) as QB;
    query = query.orderBy(keyRef(column), column.direction) as QB;
  });
  if (page.cursor) {
    const values = decodeCursor(sort, page.cursor);
    query = query.where((eb) => after(eb, sort.columns, values)) as QB;
  }
  return query.limit(page.page_size + 1) as QB;
}

/** Cuts the extra row and builds `next_cursor` from the last row returned. */
export function pageOf<T extends Record<string, unknown>>(
  rows: T[],
  sort: KeysetSort,
  pageSize: number,
): { rows: T[]; next_cursor: string | null } {
  if (rows.length <= pageSize) return { rows, next_cursor: null };
  const page = rows.slice(0, pageSize);
  const last = page[page.length - 1] as Record<string, unknown>;
  const values = sort.columns.map((_, i) => String(last[`_k${i}`]));
  return { rows: page, next_cursor: encodeCursor(sort, values) };
}
