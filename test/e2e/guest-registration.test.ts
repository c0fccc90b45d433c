import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { chromiumPath, hasChromium } from '../support/website';
import { book, type Ctx, newHome, setup, stays } from '../stay/support';

/**
 * Guest registration as a guest does it (issue 37): in headless Chromium, the stay page of a booking for four, in
 * English and in Arabic (right to left), takes three co-guests through its form without script, and comes back saying
 * three of four are registered; staff then read exactly what was typed. Runs once, in the PGlite pass (skipped when
 * DATABASE_URL is set), as test/e2e/website.test.ts and the statement page's browser test do.
 */
const onPostgresPass = Boolean(process.env.DATABASE_URL);
const skipBrowser = onPostgresPass || (!hasChromium && !process.env.CI);

let api: TestApi;
let ctx: Ctx;
let server: ServerType;
let origin: string;
let address: string;
let home: string;
let browser: Browser;
const nights = stays(60);

beforeAll(async () => {
  if (skipBrowser) return;
  api = await createTestApi();
  // The company answers on a loopback address of its own, so the browser reaches its host as a guest would.
  const byte = () => 1 + Math.floor(Math.random() * 254);
  address = `127.${byte()}.${byte()}.${byte()}`;
  ctx = await setup({ api, settings: { market: 'dubai' }, overrides: { hosts: [address] } });
  home = await newHome(ctx, { price: '400.00', bedrooms: 3, max_guests: 6 });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: address }, (info: AddressInfo) => resolve(info.port));
  });
  origin = `http://${address}:${port}`;
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

afterAll(async () => {
  if (skipBrowser) return;
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
});

const coGuests = [
  {
    name: 'Fatima Al Suwaidi',
    nationality: 'AE',
    document_type: 'emirates_id',
    document_number: '784-1988-7654321-2',
    birth_date: '1988-05-21',
  },
  { name: 'Rahul Menon', nationality: 'IN', document_type: 'passport', document_number: 'Z4829173', birth_date: '1979-12-09' },
  {
    name: 'Khalid Al Otaibi',
    nationality: 'SA',
    document_type: 'gcc_id',
    document_number: '1098765432',
    birth_date: '2010-02-17',
  },
];

describe.skipIf(skipBrowser)('a guest registers three co-guests in Chromium', () => {
  it.each(['en', 'ar'] as const)('on the stay page in %s', async (language) => {
    const booking = await book(ctx, home, ...nights(), { guests: 4, language });
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const answer = await tab.goto(`${origin}${new URL(booking.stay_url).pathname}`);
    expect(answer?.status()).toBe(200);
    expect(await tab.getAttribute('html', 'dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
    expect(await tab.locator('fieldset[data-guest]').count()).toBe(4);
    for (const [index, guest] of coGuests.entries()) {
      await tab.fill(`input[name="guests[${index}].name"]`, guest.name);
      await tab.selectOption(`select[name="guests[${index}].nationality"]`, guest.nationality);
      await tab.selectOption(`select[name="guests[${index}].document_type"]`, guest.document_type);
      await tab.fill(`input[name="guests[${index}].document_number"]`, guest.document_number);
      await tab.fill(`input[name="guests[${index}].birth_date"]`, guest.birth_date);
    }
    await tab.check('input[name="consent"]');
    await Promise.all([tab.waitForURL(/#registration$/), tab.click('button[data-register]')]);
    expect(await tab.getAttribute('[data-registered]', 'data-registered')).toBe('3');
    expect(await tab.textContent('[data-registered]')).toBe(
      language === 'ar' ? 'تم التسجيل: 3 من 4 ضيوف.' : 'Registered: 3 of 4 guests.',
    );
    // The page never shows the guests back.
    const shown = await tab.content();
    for (const guest of coGuests) expect(shown).not.toContain(guest.document_number);
    await tab.screenshot({ path: `test-artifacts/guest-registration-${language}.png`, fullPage: true });
    await tab.close();
    expect(errors).toEqual([]);
    // raw: the guest registration's admin route is newer than the checked-in typed clients (regenerated at the merge)
    const read = await api.admin(`/companies/${ctx.company.id}/bookings/${booking.reference}/guests`);
    expect(read.status, read.text).toBe(200);
    expect(read.json.guests).toEqual(coGuests);
    expect(read.json.registration).toBe('incomplete');
  });
});
