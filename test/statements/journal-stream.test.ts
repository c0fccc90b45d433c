import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalBatchSize } from '../../functions/statements/journal-month';
import { createTestApi, type TestApi } from '../support/harness';
import { receiptsInBulk, type StatementWorld, statementWorld, sum } from './support';

/**
 * The journal of a month of more lines than one batch (issue 39): streamed a batch at a time, it is the whole month,
 * each line once, in booking order (day, then line), its totals those of every line.
 */
let api: TestApi;
let w: StatementWorld;
const payments = 700; // each a receipt's line and its fee's: 1,400 lines, more than one batch
/** The month's lines as SQL reads them: the entry numbers in booking order, and the amounts. */
let lines: Array<{ id: string; amount: string }>;

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  w = await statementWorld({ api });
  const owner = await w.person('Stream Owner');
  const lease = await w.lease(owner, 'marina-gate-1br-furnished');
  w.on('2027-02-03');
  await w.receive(lease.payments[0] as string);
  w.on('2027-02-10');
  await w.charge(await w.job('marina-gate-1br-furnished'), '450.00');
  await receiptsInBulk(api, lease.reference, payments);
  lines = (
    await sql<{ id: string; amount: string }>`select id::text as id, amount::text as amount from owner_statement_lines
      where company_id = ${w.company.id}::uuid and day between '2027-02-01' and '2027-02-28' order by day, owner_statement_lines.id`.execute(
      api.db,
    )
  ).rows;
  w.on('2027-03-20');
});
afterAll(async () => {
  api.clock.set(null);
  await api.close();
});

/** The raw answer of GET /exports/journal, read chunk by chunk as it arrives. */
async function chunks(query: string) {
  const res = await api.app.request(`http://${w.company.host}/api/v1/exports/journal?${query}`, {
    headers: { Authorization: `Bearer ${w.reader.secret}` },
  });
  expect(res.status).toBe(200);
  const parts: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parts.push(decoder.decode(chunk, { stream: true }));
  return { parts, text: parts.join(''), headers: res.headers };
}

describe('the journal of a month of more lines than one batch', () => {
  it('is streamed in batches, every line once in booking order, its totals those of every line', async () => {
    expect(lines.length).toBeGreaterThan(journalBatchSize);
    const { parts, text, headers } = await chunks('month=2027-02');
    expect(headers.get('content-type')).toBe('application/json');
    // The head, then a chunk per batch, then the totals: never the whole answer at once.
    expect(parts.length).toBeGreaterThanOrEqual(2 + Math.ceil(lines.length / journalBatchSize));
    const journal = JSON.parse(text);
    expect(journal).toMatchObject({ month: '2027-02', status: 'closed' });
    expect(journal.entries.map((entry: { number: string }) => entry.number)).toEqual(lines.map((line) => `OS-${line.id}`));
    const aed = journal.totals.find((total: { currency: string }) => total.currency === 'AED');
    expect(aed.owner_payable).toBe(sum(lines.map((line) => line.amount)).toFixed(2));
    expect(aed.debit).toBe(aed.credit);
  });

  it('is the same month as a Xero CSV: a row per journal line of every entry, in the same order', async () => {
    const json = JSON.parse((await chunks('month=2027-02')).text);
    const { parts, text } = await chunks('month=2027-02&format=xero');
    expect(parts.length).toBeGreaterThanOrEqual(1 + Math.ceil(lines.length / journalBatchSize));
    const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
    const expected = json.entries.flatMap((entry: { narration: string; lines: Array<{ debit: string; credit: string }> }) =>
      entry.lines.map((line) => [entry.narration, new Big(line.debit).gt(0) ? line.debit : `-${line.credit}`]),
    );
    expect(rows.map((row) => [row['*Narration'], row['*Amount']])).toEqual(expected);
  });
});
