import { createRouter } from '../../lib/app';
import { htmlAnswer, tokenPageRoute } from '../../lib/pages';
import type { Handler } from '../../lib/routes';
import { companyByHost, requestHost } from '../../lib/tenancy';
import { pageTexts } from './page-texts';
import { messagePage, pageHeaders, statementPage } from './page.present';
import { presentStatement } from './statements.present';
import { linkOf, ownerStatement } from './statements';

/**
 * The owner's printable statement: HTML on the company's host at /statements/{token}, the address
 * `POST /owner-statements/links` answered with (lib/pages.ts). The token is the only key to it, as a hosted invoice
 * page's: it works until the link expires (410 after, 404 for a token never given). The page is the statement the JSON
 * answers (ownerStatement, then presentStatement), rendered, never recomputed.
 */
const statementPageRoute = tokenPageRoute({
  path: '/statements/{token}',
  operationId: 'getOwnerStatementPage',
  tags: ['Statements'],
  summary: 'The owner’s printable statement (HTML), at the link `POST /owner-statements/links` made',
  description:
    'The statement `GET /owner-statements` answers for the link’s owner and month, in the link’s language (English or Arabic, right to left), printable on A4; no script.',
  responses: { 410: htmlAnswer('A page saying the link has expired.') },
});

const showStatement: Handler<typeof statementPageRoute> = async function showStatement(c) {
  const { db, now } = c.var.services;
  const notFound = () => c.html(messagePage('en', pageTexts.en.notFound), 404, pageHeaders);
  const company = await companyByHost(db, requestHost(c));
  if (!company) return notFound();
  const at = now();
  const link = await linkOf(db, company.id, c.req.param('token') ?? '', at);
  if (!link) return notFound();
  if (link.expired) return c.html(messagePage(link.language, pageTexts[link.language].expired), 410, pageHeaders);
  const view = presentStatement(await ownerStatement(db, company, { id: link.owner_id }, link.month, at));
  return c.html(statementPage(view, link.language), 200, pageHeaders);
};

export const statementPages = () => createRouter().openapi(statementPageRoute, showStatement);
