import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { JournalQuery, JournalSchema } from '../../schema/statements/journal';
import { journalAnswer } from './journal-answer';
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

const getJournal: Handler<typeof journalRoute> = async function getJournal(c) {
  return journalAnswer(c, c.req.valid('query'));
};

export const journal = createRouter().openapi(journalRoute, getJournal);
