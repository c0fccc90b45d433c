import { auditRead, personalReadOf } from '../../lib/audit';
import { createRouter } from '../../lib/app';
import { iso } from '../../lib/dates';
import { type Handler, serverRoutes } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import {
  LinkInput,
  LinkSchema,
  MonthListSchema,
  MonthsQuery,
  StatementQuery,
  StatementSchema,
} from '../../schema/statements/statements';
import { presentMonths, presentStatement } from './statements.present';
import { createLink, ownerStatement, statementMonths } from './statements';

export const statementsRoute = serverRoutes('Statements', ['read:leases', 'read:invoices']);

const oneRoute = statementsRoute('read:leases', {
  method: 'get',
  path: '/owner-statements',
  operationId: 'getOwnerStatement',
  summary: 'What an owner was owed in a month: every line and the totals per currency',
  description:
    'Rent received (by `booked_on`), the company’s fee on each receipt, reversals of bounced payments (by `bounced_on`), job charges booked to the owner and their cancellations (by `cancelled_on`), a holiday home’s bookings paid online and their refunds (on the day each was booked), each with its lease, home, record and day; totals per currency, and the balance when the company keeps one. A `closed` month never changes. A person with no line in the month gets an empty statement; an unknown one is 404. Reads are audited (the owner’s name).',
  request: { query: StatementQuery },
  responses: { 200: json(StatementSchema, 'The statement') },
});

const monthsRoute = statementsRoute('read:leases', {
  method: 'get',
  path: '/owner-statements/months',
  operationId: 'listOwnerStatementMonths',
  summary: 'The owners and months that have a statement, newest month first',
  request: { query: MonthsQuery },
  responses: { 200: json(MonthListSchema, 'A page of owners’ months') },
});

const linkRoute = statementsRoute('read:leases', {
  method: 'post',
  path: '/owner-statements/links',
  operationId: 'createOwnerStatementLink',
  summary: 'A link to the statement’s printable page (English or Arabic), for the owner',
  description:
    'An unguessable link (190 bits; only its hash is kept) to an HTML page of the same statement, on the company’s host, working until `expires_at` (1 to 90 days, default 30). Send it to the owner: anyone holding it reads the statement. Creating one is audited as a read of the owner’s data.',
  request: { body: jsonBody(LinkInput, { owner: 'P-4F7KQ2M9XA', month: '2027-02', language: 'ar' }) },
  responses: { 201: json(LinkSchema, 'The link') },
});

const getStatement: Handler<typeof oneRoute> = async function getStatement(c) {
  const { owner, month } = c.req.valid('query');
  const { db, now } = c.var.services;
  const view = presentStatement(await ownerStatement(db, c.var.company, { reference: owner }, month, now()));
  await auditRead(c, [view.owner]);
  return c.json(view, 200);
};

const listMonths: Handler<typeof monthsRoute> = async function listMonths(c) {
  const { db, now } = c.var.services;
  const at = now();
  const page = await statementMonths(db, c.var.company, c.req.valid('query'), at);
  const results = presentMonths(c.var.company, page.rows, page.closings, at);
  await auditRead(c, [...new Set(results.map((month) => month.owner))]);
  return c.json({ results, next_cursor: page.next_cursor }, 200);
};

const makeLink: Handler<typeof linkRoute> = async function makeLink(c) {
  const input = c.req.valid('json');
  const { db, now } = c.var.services;
  const link = await createLink(db, c.var.company, input, now(), personalReadOf(c));
  const url = `${new URL(c.req.url).origin}/statements/${link.token}`;
  return c.json({ url, owner: input.owner, month: input.month, language: link.language, expires_at: iso(link.expires_at) }, 201);
};

export const ownerStatements = createRouter()
  .openapi(monthsRoute, listMonths)
  .openapi(oneRoute, getStatement)
  .openapi(linkRoute, makeLink);
