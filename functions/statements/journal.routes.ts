import { z } from '@hono/zod-openapi';
import { auditRead } from '../../lib/audit';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { JournalQuery, JournalSchema } from '../../schema/statements/journal';
import { monthJournal } from './journal';
import { presentJournal, quickBooksCsv, xeroCsv } from './journal.present';
import { statementsRoute } from './statements.routes';

const journalRoute = statementsRoute('read:leases', {
  method: 'get',
  path: '/exports/journal',
  operationId: 'getJournalExport',
  summary: 'The accounting journal of a month: a balanced entry per statement line, as JSON or an import CSV',
  description:
    'One entry per line of the month’s owner statements, a debit and a credit to the accounts the company maps (`accounting_accounts`): its totals per currency equal the sum of the statements. `format=xero` is Xero’s manual journal import CSV, `format=quickbooks` QuickBooks Online’s journal entry import CSV (one currency per file). Until the accounts are mapped the JSON names each line’s account by its role (`code` and `name` null) and the CSVs are 409 `accounts_not_mapped`. Reads are audited (owners’ references).',
  request: { query: JournalQuery },
  responses: {
    200: {
      description: 'The journal',
      content: {
        'application/json': { schema: JournalSchema },
        'text/csv': { schema: z.string().openapi({ example: '*Narration,*Date,Description,*AccountCode,*TaxRate,*Amount,…' }) },
      },
    },
  },
});

const csvFormats = { xero: xeroCsv, quickbooks: quickBooksCsv } as const;

const getJournal: Handler<typeof journalRoute> = async function getJournal(c) {
  const { month, format, currency } = c.req.valid('query');
  const { db, now } = c.var.services;
  const data = await monthJournal(db, c.var.company, month, currency, now(), format !== 'json');
  const body = format === 'json' ? undefined : csvFormats[format](data, c.var.company);
  await auditRead(c, [...new Set(data.entries.flatMap((entry) => (entry.owner === null ? [] : [entry.owner])))]);
  if (body === undefined) return c.json(presentJournal(data), 200);
  const filename = `journal-${month}${currency ? `-${currency}` : ''}-${format}.csv`;
  return c.body(body, 200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}"`,
  });
};

export const journal = createRouter().openapi(journalRoute, getJournal);
