import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { StatementsExportQuery, StatementsExportSchema } from '../../schema/statements/statements';
import { statementsExportAnswer } from './statements-export';
import { statementsRoute } from './statements.routes';

const exportRoute = statementsRoute('read:leases', {
  method: 'get',
  path: '/exports/owner-statements',
  operationId: 'getOwnerStatementsExport',
  summary: 'Every owner statement of a month in one answer, streamed',
  description:
    'One statement per owner with at least one line in the month, ordered by owner reference, each exactly what `GET /owner-statements?owner=…&month=…` answers for that owner (lines, totals per currency, `status`, balances when kept; an erased owner’s with `owner_name` null). A month with no line (a future one too) is an empty `statements` list. Streamed a batch of owners at a time: an error mid-way truncates the document. Reads are audited (every owner’s reference, in one row, before the first byte).',
  request: { query: StatementsExportQuery },
  responses: { 200: json(StatementsExportSchema, 'The month’s owner statements') },
});

const getExport: Handler<typeof exportRoute> = async function getExport(c) {
  // A streamed body of the schema's JSON (a Response, not a typed c.json).
  return statementsExportAnswer(c, c.req.valid('query').month) as never;
};

export const statementsExport = createRouter().openapi(exportRoute, getExport);
