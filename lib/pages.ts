import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { defineRoute } from './access';
import type { AppEnv } from './env';
import { hostOf, requestHost } from './tenancy';

/**
 * Pages for a person at a secret token in the path, on the company's host: the guest's stay page (/stay/{token}) and
 * the owner's statement (/statements/{token}). The token (32 random characters, of which only the hash is stored) is
 * the only key, as a hosted invoice page's. Each is declared like every route (`defineRoute`, access `page`: no key),
 * so the layout test, the access matrix and the route list know it; the OpenAPI documents leave it out (they publish
 * /api/v1/ and /admin/v1/ only, lib/openapi.ts): a page is what an API answer links to (`stay_url`, a statement
 * link's `url`), not an operation a client calls. The page finds its company by the host and checks the token
 * itself, answering an unknown host, a malformed token and an unknown one alike with its own 404 page.
 */

/** An HTML answer of a page. */
export const htmlAnswer = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string() } },
});

type PageDeclaration<P extends string> = {
  /** `/<page>/{token}`. */
  path: P;
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  /** Its answers besides 200 and 404 (e.g. 410 for an expired link). */
  responses?: Record<number, ReturnType<typeof htmlAnswer>>;
};

/**
 * A page's route: GET `path`, no key, HTML 200 or the page's own 404 (and whatever else it declares). The token is
 * not validated as a parameter (`c.req.param('token')`): whatever the path holds reaches the page, which answers a
 * malformed one with its 404 page, never with a 400 problem document.
 */
export function tokenPageRoute<const P extends `/${string}/{token}`>(page: PageDeclaration<P>) {
  return pageRoute('get', page, { 200: htmlAnswer('The page.') });
}

/** A page's route or action of `method`: no key (the token is the only one), its answers, and the page's own 404. */
function pageRoute<const P extends string>(
  method: 'get' | 'post',
  page: PageDeclaration<P>,
  answers: Record<number, { description: string }>,
) {
  return defineRoute({
    method,
    path: page.path,
    operationId: page.operationId,
    tags: page.tags,
    summary: page.summary,
    description: page.description,
    access: { kind: 'page' },
    responses: {
      ...answers,
      404: htmlAnswer('A page saying there is no such page: an unknown host, a malformed or unknown token.'),
      ...page.responses,
    },
  });
}

type PageActionDeclaration<P extends string> = Omit<PageDeclaration<P>, 'responses'> & {
  /** Its answers besides 303 and 404 (e.g. 409 when the action is not open). */
  responses?: Record<number, ReturnType<typeof htmlAnswer>>;
};

/**
 * A page's action: POST `path` (`/<page>/{token}/<action>`), the form of a page without script; no key, no body: the
 * token is the only key, as the page's. It answers 303 to where the action leads (a provider's payment page, back to
 * the page), the page's own 404, or an HTML page saying why the action is not open now.
 */
export function tokenPageAction<const P extends `/${string}/{token}/${string}`>(page: PageActionDeclaration<P>) {
  return pageRoute('post', page, { 303: { description: 'Where the action leads: `Location`.' } });
}

/** The headers of every page's answer. */
export const pageHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  // The token is in the address: never sent on to another site, never indexed, never framed.
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

/** A page's document in `language` (Arabic right to left), with its own `style` element. */
export function htmlPage(
  language: 'en' | 'ar',
  title: string,
  body: HtmlEscapedString | Promise<HtmlEscapedString>,
  style: HtmlEscapedString | Promise<HtmlEscapedString>,
) {
  const dir = language === 'ar' ? 'rtl' : 'ltr';
  return html`<!doctype html>
<html lang="${language}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>${style}</head>
<body>${body}</body>
</html>`;
}

/**
 * Whether a page's form was sent from the page itself, never from another site's form: a browser sends
 * `Sec-Fetch-Site: same-origin` and an `Origin` that is `null` (the pages' no-referrer policy) or its own. A request
 * with neither header (a mail provider's one-click unsubscribe, RFC 8058) is not a browser's cross-site form.
 */
export function sentFromOwnPage(c: Context<AppEnv>): boolean {
  const site = c.req.header('Sec-Fetch-Site');
  const origin = c.req.header('Origin');
  if (site !== undefined && site !== 'same-origin') return false;
  if (origin === undefined || origin === 'null') return true;
  return URL.canParse(origin) && hostOf(origin) === requestHost(c);
}
