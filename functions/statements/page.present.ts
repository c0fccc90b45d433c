import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { displayLocale, formatDay, formatMoney } from '../../lib/display';
import { type PageLanguage, pageTexts } from './page-texts';
import type { StatementView, TotalsView } from './statements.present';

/**
 * The printable statement: the API's statement (presentStatement's view, the JSON answer's very object) as HTML.
 * Nothing is added up here: every amount shown is one of the view's, formatted for the reader's language and the
 * line's currency (Latin digits in Arabic too, as on the stay page). Each amount carries its decimal string in
 * `data-amount`, so a reader (or a test) can compare the page with the JSON.
 */
export const pageHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  // The token is in the address: never sent on, never indexed, never framed; no script, no form, no base.
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

const style = raw(`<style>
body{font-family:system-ui,"Noto Sans","Noto Naskh Arabic",sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem;margin-bottom:.25rem}h2{font-size:1.15rem;margin-top:1.5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}
table{width:100%;border-collapse:collapse;font-size:.92rem}th,td{padding:.3rem .4rem;text-align:start;border-bottom:1px solid #ddd;vertical-align:top}
.amount{text-align:end;white-space:nowrap;font-variant-numeric:tabular-nums}tr.net th,tr.net td{font-weight:700;border-top:2px solid #555}
.ref{white-space:nowrap}code{font-size:.8rem;word-break:break-all}caption{text-align:start;font-weight:600;padding:1rem 0 .3rem}
.note{color:#555;font-size:.85rem}
@page{size:A4;margin:14mm}
@media print{body{margin:0;max-width:none}.note{display:none}table{page-break-inside:auto}tr{page-break-inside:avoid}}
</style>`);

/** A whole page in `language` (right to left in Arabic), with the house style. */
export function page(language: PageLanguage, title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>${style}</head>
<body>${body}</body>
</html>`;
}

/** A page that only says something (unknown or expired link). */
export function messagePage(language: PageLanguage, message: string) {
  return page(language, message, html`<main><h1>${message}</h1></main>`);
}

/** A line's day, short ("3 Feb 2027"): the period above names the days in full. */
export const shortDay = (date: string, language: PageLanguage) =>
  new Intl.DateTimeFormat(displayLocale(language), { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );

const monthName = (from: string, language: PageLanguage) =>
  new Intl.DateTimeFormat(displayLocale(language), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${from}T00:00:00Z`),
  );

/** An amount's cell: formatted for the reader, its decimal string in `data-amount` (and any `data-*` given). */
export function money(amount: string, currency: string, language: PageLanguage, data: Record<string, string> = {}) {
  const attributes = Object.entries(data).map(([name, value]) => html` data-${name}="${value}"`);
  return html`<td class="amount" data-amount="${amount}" data-currency="${currency}"${attributes}><bdi>${formatMoney(amount, currency, language)}</bdi></td>`;
}

const sumRows = [
  'rent_received',
  'rent_vat_for_owner',
  'rent_vat',
  'fees',
  'fees_vat',
  'rent_reversed',
  'rent_vat_for_owner_reversed',
  'rent_vat_reversed',
  'fees_reversed',
  'fees_vat_reversed',
  'job_charges',
  'job_charges_cancelled',
  'bookings_received',
  'bookings_refunded',
] as const;

function totalsTable(totals: TotalsView, language: PageLanguage) {
  const t = pageTexts[language];
  const row = (label: string, amount: string, name: string, cls = '') =>
    html`<tr class="${cls}"><th scope="row">${label}</th>${money(amount, totals.currency, language, { total: name })}</tr>`;
  return html`<table data-totals="${totals.currency}">
<caption>${t.totals}: ${totals.currency}</caption>
<tbody>
${totals.opening_balance === null ? '' : row(t.opening, totals.opening_balance, 'opening_balance')}
${sumRows.map((name) => row(t.sums[name], totals[name], name))}
${row(t.sums.net, totals.net, 'net', 'net')}
${totals.closing_balance === null ? '' : row(t.closing, totals.closing_balance, 'closing_balance', 'net')}
</tbody>
</table>`;
}

/** The statement's page in `language`. */
export function statementPage(view: StatementView, language: PageLanguage) {
  const t = pageTexts[language];
  const day = (date: string) => formatDay(date, language);
  const how = (line: StatementView['lines'][number]) =>
    line.online_payment !== null ? ` (${t.online}, ${line.method})` : line.method === 'cheque' ? ` (${t.cheque})` : '';
  const lines = view.lines.map(
    (line) => html`<tr data-kind="${line.kind}">
<td class="ref">${shortDay(line.day, language)}</td><td>${t.kinds[line.kind]}${how(line)}</td><td class="ref">${line.lease ?? line.job ?? line.booking ?? ''}</td><td>${line.home}</td>
<td><code dir="ltr">${line.payment_id ?? line.charge_id ?? line.refund ?? line.online_payment}</code></td>${money(line.amount, line.currency, language)}${line.vat === null ? html`<td class="amount"></td>` : money(line.vat, line.currency, language, { vat: line.kind })}
</tr>`,
  );
  const body = html`<main>
<h1>${t.title}</h1>
<p data-month="${view.month}"><strong>${monthName(view.from, language)}</strong></p>
<dl>
<dt>${t.company}</dt><dd data-company>${view.company_name}</dd>
<dt>${t.owner}</dt><dd data-owner="${view.owner}">${view.owner_name ?? t.erased} <code>${view.owner}</code></dd>
<dt>${t.period}</dt><dd>${day(view.from)} – ${day(view.to)}</dd>
<dt>${t.status}</dt><dd data-status="${view.status}">${t.statuses[view.status]}</dd>
<dt>${t.closesOn}</dt><dd>${day(view.closes_on)}</dd>
</dl>
<h2>${t.lines}</h2>
${
  view.lines.length === 0
    ? html`<p data-empty>${t.none}</p>`
    : html`<table data-lines>
<thead><tr><th>${t.day}</th><th>${t.what}</th><th>${t.lease}</th><th>${t.home}</th><th>${t.record}</th><th class="amount">${t.amount}</th><th class="amount">${t.vat}</th></tr></thead>
<tbody>${lines}</tbody>
</table>`
}
${view.totals.map((totals) => totalsTable(totals, language))}
<p class="note">${t.print}</p>
</main>`;
  return page(language, `${t.title}: ${view.owner_name ?? view.owner}, ${monthName(view.from, language)}`, body);
}
