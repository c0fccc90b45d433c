import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppEnv } from './env';
import { ApiError, type ProblemCode, problemStatus, problemTitle } from './errors';
import { problemPagesPath } from './problem-types';
import { versionVary } from './versions';

/** Every code the API can answer, from the one table of lib/errors.ts (`problemStatus`). */
export const problemCodes = Object.keys(problemStatus) as ProblemCode[];

/**
 * What each problem code means and what to do about it: the page each problem's `type` URL answers. A
 * `Record<ProblemCode, …>`, so a code added to lib/errors.ts's one table without its explanation fails to compile.
 */
export const problemExplanations: Record<ProblemCode, string> = {
  invalid_request:
    'A parameter or field is missing, malformed, out of range or unknown. Unknown query parameters and body fields are refused too. `errors` names each offending field (`path`), with a `code` and a message.',
  invalid_cursor:
    'The `cursor` was not given out by this list, or is sent with another `sort` than the one it was made for. Start the list again without a cursor.',
  invalid_json: 'The request body is not valid JSON.',
  min_nights: 'The stay is shorter than the holiday home’s minimum number of nights. `errors` lists every rule the dates break.',
  max_nights: 'The stay is longer than the holiday home’s maximum number of nights. `errors` lists every rule the dates break.',
  arrival_day:
    'The holiday home does not take arrivals on this day of the week, or the date is closed to arrival. `errors` lists every rule the dates break.',
  departure_day: 'The check-out date is closed to departure (a date’s own rule). `errors` lists every rule the dates break.',
  notice: 'The arrival is sooner than the holiday home’s minimum notice. `errors` lists every rule the dates break.',
  advance: 'The arrival is further ahead than the holiday home takes bookings. `errors` lists every rule the dates break.',
  unavailable: 'Some of the nights are already booked, held or blocked. Ask the availability route for free dates.',
  guests: 'The party is larger than the holiday home takes.',
  window_too_long: 'The availability window asked for is longer than 400 days: ask for a shorter one.',
  forbidden: 'The caller may not do this.',
  key_required: 'The route needs a server key: send it as `Authorization: Bearer sk_…`.',
  key_invalid: 'The key is unknown or malformed, or it is a secret more than 24 hours past its rotation.',
  key_revoked: 'The key was revoked. Ask the company for a new one.',
  key_wrong_company: 'The key belongs to another company than the host the request was sent to.',
  key_wrong_kind: 'A publishable key was sent where a server key (or no key) is expected.',
  key_wrong_header:
    'The key is in the wrong header: a server key goes in `Authorization: Bearer sk_…`, a publishable key in `X-Api-Key`.',
  scope_missing: 'The key does not hold the scope this route needs.',
  origin_not_allowed:
    'A publishable key was sent without an `Origin` header, from an origin not on the key, or from a local origin on a production workspace.',
  lead_type_not_allowed: 'The publishable key may not send a form of this type (see its `lead_types`).',
  challenge_failed: 'The spam check (Turnstile) refused the form’s token, or the token was made for another site.',
  admin_token_invalid: 'The admin API needs a valid operator token: send it as `Authorization: Bearer …`.',
  signature_rejected:
    'A signed message (the Accredited Service Provider’s answer) whose signature is missing or wrong, whose timestamp is more than 5 minutes from now, or for a company with no provider configured: nothing was changed.',
  signature_invalid: 'The callback’s signature (or verify token) is missing or wrong, or its timestamp is outside the tolerance.',
  not_found: 'There is no such record or route (a draft listing is not found either).',
  unknown_host: 'No company serves the host the request was sent to.',
  method_not_allowed: 'The route does not take this method.',
  conflict: 'The record is in a state that refuses this change, or a unique value (for example a host) is already taken.',
  invalid_transition:
    'The record cannot move to this status from its current one (or its status does not take what was asked); `allowed` lists the statuses it may move to, and `errors` names them.',
  lease_terms_locked: 'A lease’s terms can change only while it is a draft.',
  lease_home_occupied: 'The home already has an active lease: end that one first.',
  payment_settled: 'The payment is already settled and cannot change.',
  tax_rate_missing: 'No rate of the amount’s tax category is in force on the day: the operator adds it (admin API /tax-rates).',
  payment_bounced: 'The payment bounced: record a new payment instead.',
  payment_not_bounced: 'Only a bounced payment can take this action.',
  mandate_reference_taken: 'The mandate reference is already recorded on another lease.',
  mandate_unusable:
    'The direct-debit mandate cannot collect this payment (another lease, not active, above its maximum or outside its period).',
  stage_in_use: 'A deal sits on this pipeline stage: move the deals first.',
  contractor_stopped: 'The contractor is stopped and takes no new work.',
  charge_fixed: 'A job charge’s booked fields cannot change once it is booked.',
  accounts_not_mapped: 'The accounting connection has no account mapped for this entry: map the accounts first.',
  payment_account_missing:
    'The company has connected no payment provider account for this currency: the operator adds one (admin API, `POST /admin/v1/companies/{company_id}/payment-accounts`).',
  payment_mismatch:
    'The provider’s own record of the checkout names another payment, amount or currency than ours: nothing was recorded, and the refusal is in the audit log.',
  nothing_due:
    'Nothing is due on the booking now: it is paid, cancelled or lapsed, or held while the company confirms and its terms take no deposit.',
  idempotency_in_flight: 'A request with the same `Idempotency-Key` is still running. Retry after `Retry-After` seconds.',
  precondition_failed:
    '`If-Match` names a version the record no longer has. The answer’s `ETag` is the current version: read the record again.',
  payload_too_large: 'The body is larger than the limit (64 KiB on /api/v1, 8 MiB on /admin/v1).',
  unsupported_media_type: 'Send the body as `Content-Type: application/json`.',
  idempotency_key_reused: 'The `Idempotency-Key` was used before with another body. Use a new key for a new request.',
  rate_limited: 'Too many requests. Wait for the number of seconds in `Retry-After`; `RateLimit` headers say the limit.',
  internal_error:
    'Something went wrong on the server’s side. Quote the request id (`request_id`, `Request-Id` header) when asking for help.',
  delivery_failed: 'The webhook subscriber did not accept the delivery; it is retried.',
  encryption_unavailable: 'Lead details cannot be stored or read: their encryption key is not configured on the server.',
  spam_check_unavailable: 'The browser form’s spam check could not be asked; nothing was recorded. Try again later.',
  provider_unavailable:
    'The payment provider did not answer or answered an error: nothing was recorded. A provider retries its webhooks; retry a link later.',
  provider_refused:
    'The payment provider refused the request (for example the company’s key or outlet it does not know): nothing was recorded. Retrying will not help; the company’s payment account must be corrected (admin API).',
  not_ready:
    'The server is not ready to serve (`GET /health/ready`): its database did not answer, or its migrations are not yet applied. Try again shortly.',
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

/** `code` spans as HTML `<code>`. */
const withCode = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body>
${body}
</body>
</html>
`;
}

const explained = (code: ProblemCode) => ({
  code,
  status: problemStatus[code],
  title: problemTitle(code),
  description: problemExplanations[code].replace(/`/g, ''),
});

const wantsJson = (c: Context<AppEnv>) => {
  const accept = c.req.header('Accept') ?? '';
  return /application\/(problem\+)?json/.test(accept) && !accept.includes('text/html');
};

/**
 * GET /problems (every code) and GET /problems/{code} (one): HTML, or JSON for `Accept: application/json`. Public,
 * on any host (no company needed), cached a day. Outside /api/v1 and the OpenAPI document: it is documentation.
 */
export function problemPages(): Hono<AppEnv> {
  const pages = new Hono<AppEnv>();
  const headers = { 'Cache-Control': 'public, max-age=86400', Vary: `Accept, ${versionVary}` };
  pages.get(problemPagesPath, (c) => {
    if (wantsJson(c)) return c.json({ data: problemCodes.map(explained) }, 200, headers);
    const rows = problemCodes
      .map(
        (code) =>
          `<li><a href="${problemPagesPath}/${code}"><code>${code}</code></a> (${problemStatus[code]}): ${escapeHtml(problemTitle(code))}</li>`,
      )
      .join('\n');
    return c.html(
      page(
        'Problem types',
        `<h1>Problem types</h1>\n<p>Every error answer is <code>application/problem+json</code> (RFC 9457); its <code>type</code> links to one of these pages.</p>\n<ul>\n${rows}\n</ul>`,
      ),
      200,
      headers,
    );
  });
  pages.get(`${problemPagesPath}/:code`, (c) => {
    const code = c.req.param('code');
    if (!Object.hasOwn(problemStatus, code)) throw new ApiError('not_found', `There is no problem type ${code}.`);
    const known = code as ProblemCode;
    if (wantsJson(c)) return c.json(explained(known), 200, headers);
    const body = `<h1>${escapeHtml(problemTitle(known))}</h1>
<p>Code <code>${known}</code>, HTTP status ${problemStatus[known]}.</p>
<p>${withCode(problemExplanations[known])}</p>
<p>Every error answer is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>code</code> and <code>request_id</code>. <a href="${problemPagesPath}">All problem types</a>.</p>`;
    return c.html(page(`${problemTitle(known)} (${known})`, body), 200, headers);
  });
  return pages;
}
