/**
 * One request's values of a write's own baseline (bench/write-baselines.ts): the captured rows with their keys,
 * references and hashes made new, stays moved, and updates aimed at the turn's targets.
 */

type Row = Record<string, unknown>;

/** What a baseline writes and how its statement is built, per request (bench/server.ts `/bare/write/…`). */
export type WriteBaseline = {
  name: string;
  /** The statement, `$1` a JSON array: one item per step below, each a list of rows. */
  text: string;
  /** Per step: rows to write, as the write stored them (values made new for each request, see `fresh`). */
  rows: Row[][];
  /** Strings made new on each request (keys of the inserted rows and values of unique-indexed columns). */
  fresh: string[];
  /**
   * Per step: date columns of an exclusion constraint (a booking's stay), moved on each request past every stay the
   * bench books (and past each other), so the rows never overlap.
   */
  shift: string[][];
  /** Per update step: keys of other rows of that table to update in turn (so concurrent requests rarely meet). */
  targets: Row[][];
  /**
   * Inserted rows' columns naming a row an update step changes (a job's calendar block names its job): each request
   * names that step's target of the turn instead, as the write aims each request at another record.
   */
  links: Array<{ step: number; column: string; from: number; key: string }>;
  /** What the capture saw: table, inserted, updated (changed columns), deleted. */
  summary: string[];
};

/** A random string of the same shape: each letter and digit replaced by another of its kind (a uuid stays a uuid). */
function like(value: string): string {
  const pick = (chars: string) => chars[Math.floor(Math.random() * chars.length)]!;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) return crypto.randomUUID();
  // Hexadecimal (a hash, bytea as JSON gives it `\x…`): other hexadecimal digits.
  const hex = /^(\\x)?([0-9a-f]+)$/.exec(value);
  if (hex && (hex[1] || /[a-f]/.test(value))) return `${hex[1] ?? ''}${hex[2]!.replace(/./g, () => pick('0123456789abcdef'))}`;
  return value.replace(/[0-9]|[a-z]|[A-Z]/g, (c) =>
    /[0-9]/.test(c)
      ? pick('0123456789')
      : /[a-z]/.test(c)
        ? pick('abcdefghijklmnopqrstuvwxyz')
        : pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  );
}

/** Days past the captured stay where the baseline's stays start: beyond the bench's bookings and jobs' blocks. */
const FAR = 2500;
const moved = (time: number, days: number) => new Date(time + days * 86_400_000).toISOString().slice(0, 10);

/**
 * One request's value of the statement's `$1`: the captured rows with every fresh string made new (wherever it
 * appears, nested JSON included, so the rows still point at each other), and each update aimed at the next target.
 */
export function baselineValues(baseline: WriteBaseline, turn: number): string {
  const map = new Map(baseline.fresh.map((v) => [v, like(v)]));
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return map.get(value) ?? value;
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  // The target of each update step this turn (its first row's), for the inserted rows that name it.
  const aimed = (step: number, captured: Row) => {
    const row = { ...captured };
    for (const l of baseline.links ?? []) {
      if (l.step !== step) continue;
      const others = baseline.targets[l.from]!;
      row[l.column] = others[(turn * baseline.rows[l.from]!.length) % others.length]![l.key];
    }
    return row;
  };
  const steps = baseline.rows.map((rows, step) => {
    const others = baseline.targets[step] ?? [];
    const dates = baseline.shift[step] ?? [];
    if (dates.length) {
      return (walk(rows) as Row[]).map((captured) => {
        const row = aimed(step, captured);
        const times = dates.map((c) => Date.parse(`${String(row[c])}T00:00:00Z`));
        const span = (Math.max(...times) - Math.min(...times)) / 86_400_000 + 1;
        const days = FAR + turn * span;
        return { ...row, ...Object.fromEntries(dates.map((c, i) => [c, moved(times[i]!, days)])) };
      });
    }
    if (!others.length) return (walk(rows) as Row[]).map((row) => aimed(step, row));
    // An update: the same changed values on another row of the table each turn (its key from the targets).
    return rows.map((row, i) => ({ ...row, ...others[(turn * rows.length + i) % others.length] }));
  });
  return JSON.stringify(steps);
}
