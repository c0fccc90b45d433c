/** The CRM bench's reading of its measurements: statement kinds, quantiles, query plans. */
import { round } from './report';

/** What a statement of the route is, for the per-statement times. */
export function statementKind(text: string): string {
  if (/from "contacts"/.test(text) && /\blimit\b/.test(text)) return 'the page of contacts (with their leads)';
  if (/from "company_hosts"/.test(text)) return 'company by Host';
  if (/from "api_keys"/.test(text)) return 'key and its secrets';
  if (/^update "api_keys"/.test(text)) return 'key last used (once a minute)';
  if (/from "external_ids"/.test(text)) return "the page's external ids";
  if (/^insert into "audit_log"/.test(text)) return 'audit row (personal data read)';
  return text.slice(0, 40);
}

export const median = (values: number[]) => quantile(values, 0.5);
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
export const ms = (value: number) => `${round(value, 2)} ms`;

/** The shape of a list query's plan, and what it read. */
export const planSummary = (plan: string[]) => {
  const text = plan.join('\n');
  const indexScan = /Index Scan using contacts_sync on contacts/.test(text);
  // A sort of the contacts themselves (the leads' sub-select sorts a person's few leads, which is fine).
  const sort = /Sort Key: contacts\.updated_at/.test(text);
  const bitmap = /Bitmap Heap Scan on contacts/.test(text);
  return {
    shape: indexScan
      ? `Index Scan using contacts_sync${sort ? ' + Sort' : ', no Sort'}`
      : `${bitmap ? 'Bitmap Heap Scan (BitmapOr on contacts_sync)' : 'other scan'}${sort ? ' + Sort' : ', no Sort'}`,
    indexScan,
    sort,
    removed: [...text.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0),
    // The first Buffers line is the top node's: everything the query touched.
    buffers: Number(/Buffers: shared hit=(\d+)/.exec(text)?.[1] ?? Number.NaN),
    time: Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN),
  };
};
