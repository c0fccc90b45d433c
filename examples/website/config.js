/**
 * The site's settings: edit this file (it is the only one a company changes).
 * - apiBase: the company's API host (no trailing slash, no /api/v1).
 * - publishableKey: a pk_ key whose origins list this site's exact origin (and lead types enquiry, booking).
 * - turnstileSiteKey: the Cloudflare Turnstile site key of the company's widget. Empty: development mode, where
 *   forms send Turnstile's test token, which only a development workspace accepts.
 * - timeZone: the company's time zone (IANA name): times are shown in it, named, as on the stay page.
 * - consentVersion: the version of the privacy notice the forms link to (kept with every enquiry and booking).
 */
export default {
  apiBase: 'http://localhost:8787',
  publishableKey: 'pk_replace_me',
  turnstileSiteKey: '',
  timeZone: 'Asia/Dubai',
  consentVersion: '2026-01',
  privacyUrl: 'privacy.html',
};
