import { type Context, Hono } from 'hono';
import type { AppEnv } from '../../lib/env';
import { companyByHost, requestHost } from '../../lib/tenancy';
import { pageTexts } from './page-texts';
import { messagePage, pageHeaders, statementPage } from './page.present';
import { presentStatement } from './statements.present';
import { linkOf, ownerStatement } from './statements';

/**
 * The owner's printable statement: HTML on the company's host at /statements/{token}, the address
 * `POST /owner-statements/links` answered with. The token is the only key to it, as a hosted invoice page's: it works
 * until the link expires (410 after, 404 for a token never given). The page is the statement the JSON answers
 * (ownerStatement, then presentStatement), rendered, never recomputed.
 */
async function showStatement(c: Context<AppEnv>) {
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
}

export function statementPages() {
  return new Hono<AppEnv>().get('/statements/:token', showStatement);
}
