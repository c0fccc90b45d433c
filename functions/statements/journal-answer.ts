import type { Context } from 'hono';
import { auditRead } from '../../lib/audit';
import type { AppEnv } from '../../lib/env';
import { keepServicesUntil } from '../../lib/request-lifecycle';
import { monthJournal } from './journal-month';
import {
  type CsvLayout,
  csvRecords,
  entryView,
  journalHead,
  journalTotals,
  oneCurrency,
  quickBooksCsv,
  xeroCsv,
} from './journal.present';

const utf8 = new TextEncoder();
const csvLayouts: Record<'xero' | 'quickbooks', CsvLayout> = { xero: xeroCsv, quickbooks: quickBooksCsv };

/**
 * The month's journal as JSON or an import CSV, streamed (issue 39): everything that can refuse it (the accounts a CSV
 * needs, 409; several currencies in a CSV, 400) and the read's audit come first; then the entries, a batch at a time
 * (functions/statements/journal-month.ts), each read once the client took the previous one, and the JSON's totals,
 * added up as the entries went, at its end. The answer is the one the whole month built at once gave, byte for byte;
 * a failure mid-way aborts the body (a truncated document, never a shorter valid one).
 */
export async function journalAnswer(
  c: Context<AppEnv>,
  query: { month: string; format: 'json' | 'xero' | 'quickbooks'; currency?: string },
): Promise<Response> {
  const { month, format, currency } = query;
  const { db, now } = c.var.services;
  const company = c.var.company;
  const data = await monthJournal(db, company, month, currency, now(), format !== 'json');
  if (format !== 'json') oneCurrency(data.currencies);
  await auditRead(c, data.owners);
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = async (text: string) => {
    if (text === '') return;
    await writer.ready;
    await writer.write(utf8.encode(text));
  };
  const streamed = (async () => {
    try {
      if (format === 'json') {
        const totals = journalTotals();
        await write(`${JSON.stringify(journalHead(data)).slice(0, -1)},"entries":[`);
        let first = true;
        for await (const batch of data.entries()) {
          for (const entry of batch) totals.add(entry);
          await write(`${first ? '' : ','}${batch.map((entry) => JSON.stringify(entryView(entry))).join(',')}`);
          first = false;
        }
        await write(`],"totals":${JSON.stringify(totals.result())}}`);
      } else {
        const layout = csvLayouts[format];
        await write(csvRecords([layout.header]));
        for await (const batch of data.entries()) await write(csvRecords(layout.rows(batch, company)));
      }
      await writer.close();
    } catch (error) {
      console.error(`request ${c.var.requestId}: the journal of ${month} stopped:`, error);
      await writer.abort(error).catch(() => {});
    }
  })();
  keepServicesUntil(c, streamed);
  if (format === 'json') return c.body(readable, 200, { 'Content-Type': 'application/json' });
  const filename = `journal-${month}${currency ? `-${currency}` : ''}-${format}.csv`;
  return c.body(readable, 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}"`,
  });
}
