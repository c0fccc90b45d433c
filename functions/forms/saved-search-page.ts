import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import { actorOf } from '../../lib/audit';
import { sha256 } from '../../lib/crypto';
import type { AppEnv } from '../../lib/env';
import { htmlPage, pageHeaders, sentFromOwnPage } from '../../lib/pages';
import { companyByHost, requestHost } from '../../lib/tenancy';
import type { SavedSearchStatus } from '../../schema/forms/db';
import { stepSearch } from './saved-searches';
import { searchPagePath } from './saved-searches.present';

/**
 * A saved search's page for its visitor (issue 36): HTML at /saved-searches/{token} on the company's host, the
 * `confirm_url` and `page_url` a server key reads. It shows the search and where it stands, with a confirm button
 * while pending and a stop button until stopped (no script); the stop button's address is also the `stop_url` a
 * mail's one-click unsubscribe posts to (RFC 8058). The token (32 random characters) is the only key; its hash is kept.
 */

const texts = {
  en: {
    title: 'Your saved search',
    notFound: 'There is no such page.',
    status: {
      pending: 'Waiting for your confirmation.',
      active: 'Active: we tell you when a listing matches.',
      stopped: 'Stopped: no more alerts.',
    },
    confirm: 'Confirm these alerts',
    stop: 'Stop these alerts',
    search: 'The search',
    everything: 'Every new listing',
    refused: 'This was sent from another site; nothing changed.',
    back: 'Back to your saved search',
  },
  ar: {
    title: 'بحثك المحفوظ',
    notFound: 'لا توجد صفحة كهذه.',
    status: { pending: 'بانتظار تأكيدك.', active: 'نشط: سنخبرك عندما يطابقه عقار.', stopped: 'متوقف: لا مزيد من التنبيهات.' },
    confirm: 'تأكيد هذه التنبيهات',
    stop: 'إيقاف هذه التنبيهات',
    search: 'البحث',
    everything: 'كل عقار جديد',
    refused: 'أُرسل هذا من موقع آخر؛ لم يتغير شيء.',
    back: 'العودة إلى بحثك المحفوظ',
  },
} as const;

type Language = keyof typeof texts;
const languageOf = (language: string | null): Language => (language === 'ar' ? 'ar' : 'en');

const style = raw(`<style>
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.6rem}dt{font-weight:600}.status{font-weight:600}form{display:inline-block;margin-inline-end:1rem}
</style>`);

const notFound = (c: Context<AppEnv>) =>
  c.html(htmlPage('en', texts.en.notFound, html`<h1>${texts.en.notFound}</h1>`, style), 404, pageHeaders);

type Found = { id: string; company_id: string; status: SavedSearchStatus; search: string; language: string | null };

/** The saved search of the request's host and a token of the right shape; undefined otherwise. */
async function searchOf(c: Context<AppEnv>, token: string): Promise<Found | undefined> {
  if (!/^[A-Za-z0-9]{32}$/.test(token)) return undefined;
  const company = await companyByHost(c.var.services.db, requestHost(c));
  if (!company) return undefined;
  return c.var.services.db
    .selectFrom('saved_searches')
    .select(['id', 'company_id', 'status', 'search', 'language'])
    .where('company_id', '=', company.id)
    .where('token_hash', '=', await sha256(token))
    .executeTakeFirst();
}

/** GET /saved-searches/{token}: the page. */
export function savedSearchPage() {
  return async function showSavedSearch(c: Context<AppEnv, '/saved-searches/:token'>): Promise<Response> {
    const token = c.req.param('token');
    const found = await searchOf(c, token);
    if (!found) return notFound(c);
    const t = texts[languageOf(found.language)];
    const filters = [...new URLSearchParams(found.search)];
    const path = searchPagePath(token);
    const body = html`<main>
<h1>${t.title}</h1>
<p class="status" data-status="${found.status}">${t.status[found.status]}</p>
<h2>${t.search}</h2>
${filters.length === 0 ? html`<p>${t.everything}</p>` : html`<dl>${filters.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`}
${found.status === 'pending' ? html`<form method="post" action="${path}/confirmation"><button type="submit">${t.confirm}</button></form>` : ''}
${found.status !== 'stopped' ? html`<form method="post" action="${path}/stop"><button type="submit">${t.stop}</button></form>` : ''}
</main>`;
    return c.html(htmlPage(languageOf(found.language), t.title, body, style), 200, pageHeaders);
  };
}

/**
 * POST /saved-searches/{token}/confirmation and …/stop: the visitor's step, then 303 back to the page, which shows where
 * the search stands (a second press changes nothing). Refused (403) when a browser sent it from another site.
 */
export function savedSearchStep(to: 'active' | 'stopped') {
  return async function stepSavedSearch(c: Context<AppEnv, '/saved-searches/:token/*'>): Promise<Response> {
    const token = c.req.param('token');
    const found = await searchOf(c, token);
    if (!found) return notFound(c);
    if (!sentFromOwnPage(c)) {
      const t = texts[languageOf(found.language)];
      const body = html`<main><h1>${t.title}</h1><p data-problem="origin_not_allowed">${t.refused}</p><p><a href="${searchPagePath(token)}">${t.back}</a></p></main>`;
      return c.html(htmlPage(languageOf(found.language), t.title, body, style), 403, pageHeaders);
    }
    const reason = to === 'stopped' ? 'visitor' : undefined;
    await stepSearch(
      c.var.services.db,
      found.company_id,
      found.id,
      to,
      { causedBy: actorOf(c.var.caller), reason },
      c.var.services.now(),
    );
    return c.body(null, 303, { ...pageHeaders, Location: searchPagePath(token) });
  };
}
