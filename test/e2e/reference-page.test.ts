import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, hasChromium, launchChromium, startApi } from '../support/website';

/**
 * The reference page (/api/v1/docs) in headless Chromium with the network closed: every request that is not to
 * the API on loopback is aborted (`page.route`), on top of the resolver that finds no other host. The page must
 * still render the operations: its script is the pinned @scalar/api-reference bundle served by the API itself.
 * A screenshot goes to test-artifacts/. Skipped like website.test.ts: on the PostgreSQL pass, and without Chromium
 * outside CI.
 */
const onPostgresPass = Boolean(process.env.DATABASE_URL);
const skipWithoutChromium = !hasChromium && !process.env.CI;
if (skipWithoutChromium) console.warn(`reference-page.test.ts skipped: no Chromium at ${chromiumPath}`);

let api: Awaited<ReturnType<typeof startApi>>;
let browser: Browser;
const artifacts = join(process.cwd(), 'test-artifacts');

beforeAll(async () => {
  if (onPostgresPass || skipWithoutChromium) return;
  if (!hasChromium) throw new Error(`Chromium is required for the browser test and is missing at ${chromiumPath}.`);
  api = await startApi();
  await mkdir(artifacts, { recursive: true });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
});

describe.skipIf(onPostgresPass || skipWithoutChromium)('the reference page offline', () => {
  it('renders the operations with only the API on loopback reachable, within its CSP', async () => {
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const blocked: string[] = [];
    const loaded: string[] = [];
    const problems: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === api.origin) {
        loaded.push(url.pathname);
        return route.continue();
      }
      blocked.push(url.href);
      return route.abort('internetdisconnected');
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const res = await page.goto(`${api.origin}/api/v1/docs`);
    expect(res?.status()).toBe(200);
    // Operation summaries of the first group, which the page opens (the sidebar and the first sections).
    await page
      .getByText('Published listings, filtered, sorted and paginated')
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await page.getByText('One listing by its English or Arabic slug').first().waitFor({ state: 'visible', timeout: 30_000 });
    await expect(page.getByText('Bookings').first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(artifacts, 'reference-page-offline.png'), fullPage: false });
    // No control that needs Scalar's cloud (its AI agent, MCP generation, the developer toolbar's share and deploy):
    // offline, and under the page's CSP (connect-src 'self'), each would be a dead end. Scalar shows them on
    // localhost unless told not to.
    for (const cloud of ['Ask AI', 'Generate MCP', 'Developer Tools']) {
      await expect(page.getByText(cloud, { exact: true }).count(), cloud).resolves.toBe(0);
    }
    expect(loaded).toEqual(expect.arrayContaining(['/api/v1/docs', '/api/v1/docs/api-reference.js', '/api/v1/openapi.json']));
    // Nothing it needs lives elsewhere: whatever it asked of another origin was refused and it rendered anyway.
    expect(problems).toEqual([]);
    await context.close();
    if (blocked.length > 0) console.info(`reference page: requests refused offline: ${blocked.join(', ')}`);
  }, 120_000);

  it('serves the pinned script with an ETag and answers 304 to it', async () => {
    // raw: the pinned script is JavaScript, not an operation of the document
    const first = await fetch(`${api.origin}/api/v1/docs/api-reference.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await first.text()).length).toBeGreaterThan(1_000_000);
    const etag = first.headers.get('etag') ?? '';
    const again = await fetch(`${api.origin}/api/v1/docs/api-reference.js`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });
});
