import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { type Browser, chromium } from 'playwright-core';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { chromiumPath, hasChromium } from '../support/website';
import { type StatementWorld, statementWorld } from './support';
import { createCompany } from '../support/world';

/**
 * The owner's printable statement: a link made with the server key (unguessable, expiring), the page on the company's
 * host with a strict CSP; in headless Chromium, in English and in Arabic (right to left), it shows the JSON's own
 * lines and totals formatted for the currency, and prints to a PDF that says the same. The browser part runs once, in
 * the PGlite pass (skipped when DATABASE_URL is set), as test/e2e/website.test.ts does.
 */
const onPostgresPass = Boolean(process.env.DATABASE_URL);
const skipBrowser = onPostgresPass || (!hasChromium && !process.env.CI);

let api: TestApi;
let w: StatementWorld;
let server: ServerType;
let origin: string;
let address: string;
let owner: string;

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  // The company answers on a loopback address of its own, so the browser reaches its host as an owner would.
  const byte = () => 1 + Math.floor(Math.random() * 254);
  address = `127.${byte()}.${byte()}.${byte()}`;
  w = await statementWorld({ api, settings: { statement_balance: 'carried' }, company: { hosts: [address] } });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: address }, (info: AddressInfo) => resolve(info.port));
  });
  origin = `http://${address}:${port}`;
  owner = await w.person('Layla Haddad');
  const lease = await w.lease(owner, 'marina-gate-1br-furnished');
  w.on('2027-01-05');
  await w.receive(lease.payments[0] as string);
  w.on('2027-02-03');
  await w.receive(lease.payments[1] as string);
  await w.bounce(lease.payments[0] as string);
  await w.charge(await w.job('marina-gate-1br-furnished'), '1234.56');
  w.on('2027-03-10');
});
afterAll(async () => {
  api.clock.set(null);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
});

async function link(body: Record<string, unknown>) {
  const res = await w.client.POST('/api/v1/owner-statements/links', { body: body as never });
  expect(res.response.status, JSON.stringify(res.error)).toBe(201);
  return res.data as NonNullable<typeof res.data>;
}
/** The page at a link's path, on the company's host (the link's origin is the request's). */
// raw: the statement's HTML page, a path the API document does not declare
const page = (url: string, host = w.company.host) => api.request(new URL(url).pathname, { host });

describe('the statement’s link and page', () => {
  it('gives an expiring link to the page, which shows the statement under a strict CSP', async () => {
    const made = await link({ owner, month: '2027-02', language: 'en', expires_in_days: 7 });
    expect(made).toMatchObject({ owner, month: '2027-02', language: 'en', expires_at: '2027-03-17T08:00:00.000Z' });
    expect(made.url).toMatch(/^http:\/\/[^/]+\/statements\/[A-Za-z0-9]{32}$/);
    const res = await page(made.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    expect(res.text).toContain('Layla Haddad');
    expect(res.text).not.toContain('<script');
    // Only the token's hash is kept.
    const token = made.url.split('/').at(-1) as string;
    const stored = await api.db.selectFrom('owner_statement_links').select('token_hash').execute();
    expect(stored.some((row) => Buffer.from(row.token_hash).toString().includes(token))).toBe(false);
    // Expired after its days: 410; a token never given, or another company's host: 404.
    api.clock.set(new Date('2027-03-17T08:00:00Z'));
    expect((await page(made.url)).status).toBe(410);
    w.on('2027-03-10');
    expect((await page(`${origin}/statements/${'x'.repeat(32)}`)).status).toBe(404);
    const other = await createCompany(api);
    expect((await page(made.url, other.host)).status).toBe(404);
  });

  it('refuses a link for an unknown owner (404) and audits each link made', async () => {
    const res = await w.client.POST('/api/v1/owner-statements/links', { body: { owner: 'P-NOBODY0000', month: '2027-02' } });
    expect(res.response.status).toBe(404);
    await link({ owner, month: '2027-01' });
    const audit = await api.db
      .selectFrom('audit_log')
      .select(['action', 'subject', 'details'])
      .where('company_id', '=', w.company.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ action: 'personal_data.read', subject: w.reader.prefix });
    expect(audit.details).toEqual({ route: 'POST /api/v1/owner-statements/links', references: [owner] });
  });
});

/** The test's own formatting of an amount (Intl, not lib/display): Latin digits in Arabic too. */
const formatted = (amount: string, currency: string, language: 'en' | 'ar') =>
  new Intl.NumberFormat(language === 'ar' ? 'ar-AE-u-nu-latn' : 'en-GB', { style: 'currency', currency }).format(
    amount as Intl.StringNumericLiteral,
  );

async function pdfText(pdf: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  const parts: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    parts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  return parts.join('\n');
}

describe.skipIf(skipBrowser)('the printable statement in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    // As launchChromium (test/support/website.ts), every other host resolving to nothing: the page needs nothing else.
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${address}`,
      ],
    });
    await mkdir('test-artifacts', { recursive: true });
  });
  afterAll(() => browser?.close());

  it.each(['en', 'ar'] as const)('shows the JSON’s lines and totals (%s), and prints them to PDF', async (language) => {
    const statement = await w.statement(owner, '2027-02');
    expect(statement.lines.length).toBe(5);
    // Made over HTTP on the company's address: the link's origin is the one the request came to.
    const overHttp = createPropertyApiClient({ baseUrl: origin, serverKey: w.reader.secret });
    const made = (await overHttp.POST('/api/v1/owner-statements/links', { body: { owner, month: '2027-02', language } }))
      .data as NonNullable<Awaited<ReturnType<typeof link>>>;
    expect(made.url.startsWith(`${origin}/statements/`)).toBe(true);
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const answer = await tab.goto(made.url);
    expect(answer?.status()).toBe(200);
    expect(await tab.getAttribute('html', 'lang')).toBe(language);
    expect(await tab.getAttribute('html', 'dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
    expect(await tab.evaluate(() => getComputedStyle(document.body).direction)).toBe(language === 'ar' ? 'rtl' : 'ltr');
    expect(await tab.textContent('[data-company]')).toBe('Test Company');
    expect(await tab.textContent('[data-owner]')).toContain('Layla Haddad');

    // Every line: its amount as the JSON gives it, shown formatted for its currency, and the VAT in it (issue 35).
    const rows = await tab.$$eval('[data-lines] tbody tr', (trs) =>
      trs.map((tr) => {
        const cell = tr.querySelector('[data-amount]') as HTMLElement;
        const vat = tr.querySelector('[data-vat]') as HTMLElement | null;
        return {
          kind: tr.getAttribute('data-kind'),
          amount: cell.dataset.amount,
          shown: cell.textContent,
          vat: vat?.dataset.amount ?? null,
          vatShown: vat?.textContent ?? null,
        };
      }),
    );
    expect(rows).toEqual(
      statement.lines.map((l) => ({
        kind: l.kind,
        amount: l.amount,
        shown: formatted(l.amount, l.currency, language),
        vat: l.vat,
        vatShown: l.vat === null ? null : formatted(l.vat, l.currency, language),
      })),
    );
    // The fee's VAT is shown to the owner (the fee is standard-rated by default).
    expect(rows.find((row) => row.kind === 'fee')?.vat).toMatch(/^-\d+\.\d+$/);
    // Every total of every currency, the balance included.
    const totals = await tab.$$eval('[data-totals] [data-total]', (cells) =>
      cells.map((cell) => ({
        currency: (cell as HTMLElement).dataset.currency,
        total: (cell as HTMLElement).dataset.total,
        amount: (cell as HTMLElement).dataset.amount,
        shown: cell.textContent,
      })),
    );
    const names = [
      'opening_balance',
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
      'net',
      'closing_balance',
    ] as const;
    expect(totals).toEqual(
      statement.totals.flatMap((t) =>
        names.map((name) => ({
          currency: t.currency,
          total: name,
          amount: t[name],
          shown: formatted(t[name] as string, t.currency, language),
        })),
      ),
    );
    expect(statement.totals[0]).toMatchObject({ opening_balance: '9500.00', net: '-1234.56', closing_balance: '8265.44' });
    expect(errors).toEqual([]);
    await tab.screenshot({ path: `test-artifacts/owner-statement-${language}.png`, fullPage: true });

    // Ids read left to right on the Arabic page too (isolated: a UUID's digit groups are never reordered by the bidi
    // algorithm), so they print in order.
    expect(await tab.$$eval('td code', (els) => els.map((e) => getComputedStyle(e).direction))).toEqual(
      statement.lines.map(() => 'ltr'),
    );
    // Print to PDF: the same page on paper, its amounts and references readable in the file's text.
    await tab.emulateMedia({ media: 'print' });
    expect(await tab.isVisible('.note')).toBe(false);
    const pdf = await tab.pdf({ format: 'A4', printBackground: true });
    await writeFile(`test-artifacts/owner-statement-${language}.pdf`, pdf);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(pdf);
    // Cells wrap long references over lines: compared without white space.
    const packed = text.replace(/\s+/g, '');
    for (const t of statement.totals) {
      for (const name of names) expect(packed).toContain(formatted(t[name] as string, t.currency, 'en').replace(/[^\d.,]/g, ''));
    }
    for (const line of statement.lines) expect(packed).toContain(line.payment_id ?? line.charge_id);
    expect(packed).toContain(owner);
    if (language === 'en') {
      expect(text).toContain('Layla Haddad');
      expect(text).toContain('Test Company');
      expect(text).toContain('Owner statement');
    }
    await tab.close();
  });
});
