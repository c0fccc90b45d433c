import { afterAll, beforeAll, expect } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import type { RateLimiter } from '../../lib/ratelimit/index';
import type { LeadType } from '../../schema/common/scopes';
import { answer } from '../stay/support';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { startTurnstileVerifier } from '../support/turnstile';
import { adminOf, createKey, demoCompany } from '../support/world';

export { answer };

/**
 * What the browser-form tests share: the real app whose spam check asks a real siteverify server on loopback,
 * companies with the demo catalogue and their Turnstile secret set through the admin API, and helpers that
 * post as a visitor's page does (X-Api-Key and Origin) and check that a refusal stored nothing.
 */
export type Verifier = Awaited<ReturnType<typeof startTurnstileVerifier>>;
/** An answer as the harness reads it (`status`, `headers`, `json`, `text`): the typed clients' through {@link answer} too. */
export type Response = Pick<Awaited<ReturnType<TestApi['request']>>, 'status' | 'headers' | 'json' | 'text'>;
export type Key = { secret: string; prefix: string };
export type FormCompany = { id: string; host: string; key: Key; reader: Key };

export const site = 'https://www.example.com';
export const siteHost = 'www.example.com';

export async function openForms(options: { env?: Record<string, string>; handle?: DatabaseHandle; limiter?: RateLimiter } = {}) {
  const verifier = await startTurnstileVerifier();
  const api = await createTestApi({
    env: { TURNSTILE_SITEVERIFY_URL: verifier.url, ...options.env },
    handle: options.handle,
    limiter: options.limiter,
  });
  return {
    api,
    verifier,
    close: async () => {
      await verifier.close();
      // A second API on the same database leaves closing it to the first.
      if (!options.handle) await api.close();
    },
  };
}

/**
 * A company with the demo catalogue, the verifier's secret as its Turnstile secret, a publishable key for
 * `origins` and a server key that reads leads and contacts.
 */
export async function formCompany(
  api: TestApi,
  verifier: Verifier,
  options: {
    environment?: 'production' | 'development';
    origins?: string[];
    leadTypes?: LeadType[];
    secret?: boolean;
    currency?: string;
  } = {},
): Promise<FormCompany> {
  const company = await demoCompany(
    api,
    {},
    { environment: options.environment ?? 'production', currency: options.currency ?? 'AED' },
  );
  if (options.secret ?? true) {
    const set = await setSpamCheck(api, company.id, verifier.secret);
    expect(set.status, set.text).toBe(200);
  }
  const key = await publishableKey(api, company.id, options.origins ?? [site], options.leadTypes);
  const reader = await createKey(api, company.id, { scopes: ['read:leads', 'read:contacts'] });
  return { ...company, key, reader };
}

/** PUT a company's Turnstile secret (null: none), through the typed admin client. */
export const setSpamCheck = (api: TestApi, companyId: string, secret: string | null) =>
  answer(
    adminOf(api).PUT('/admin/v1/companies/{company_id}/spam-check', {
      params: { path: { company_id: companyId } },
      body: { secret },
    }),
  );

/** A company's audit rows of one action (a page of 100), through the typed admin client. */
export async function auditRows(api: TestApi, companyId: string, action: string) {
  const res = await answer(
    adminOf(api).GET('/admin/v1/companies/{company_id}/audit-log', {
      params: { path: { company_id: companyId }, query: { page_size: 100, action } as never },
    }),
  );
  expect(res.status, res.text).toBe(200);
  return res.json.results as Array<{ subject: string; details: Record<string, unknown> }>;
}

type CompanyOptions = Parameters<typeof formCompany>[2];
export type FormsFile = { api: TestApi; verifier: Verifier; company: FormCompany };

/**
 * A test file's API, verifier and company: opened before the file's tests and handed to `use`, closed after.
 * Each file runs on its own database copy (PGlite) or its own company (PostgreSQL).
 */
export function formsForFile(use: (file: FormsFile) => void, options: CompanyOptions = {}): void {
  let forms: Awaited<ReturnType<typeof openForms>> | undefined;
  beforeAll(async () => {
    forms = await openForms();
    use({ api: forms.api, verifier: forms.verifier, company: await formCompany(forms.api, forms.verifier, options) });
  });
  afterAll(() => forms?.close());
}

export function publishableKey(api: TestApi, companyId: string, origins: string[] = [site], leadTypes?: LeadType[]) {
  return createKey(api, companyId, { kind: 'publishable', origins, ...(leadTypes ? { lead_types: leadTypes } : {}) });
}

let serial = 0;
export const uniqueEmail = () => `visitor.${Date.now().toString(36)}${(serial++).toString(36)}@example.com`;

/** A listing request's answers, every spec key valid for the demo catalogue (an Arabic area slug), plus an ordinary one. */
export const listingAnswers = {
  purpose: 'sale',
  area: 'دبي-مارينا',
  property_type: 'apartment',
  bedrooms: 2,
  bathrooms: 3,
  size_sqm: 120.5,
  price: 1850000,
  price_period: 'total',
  floor: 12,
};

/** A visitor's enquiry with a fresh token the widget gave on a page of `hostname`. */
export function enquiry(verifier: Verifier, extra: Record<string, unknown> = {}, hostname = siteHost) {
  return { consent: true, consent_version: '2026-01', email: uniqueEmail(), challenge: verifier.issue(hostname), ...extra };
}

/** POST /api/v1/leads as a page does, through the typed client: the publishable key in X-Api-Key, the page's Origin. */
export function postForm(
  api: TestApi,
  company: { host: string; key: Key },
  body: unknown,
  options: { key?: string; origin?: string | null; clientAddress?: string; headers?: Record<string, string> } = {},
) {
  const origin = options.origin === undefined ? site : options.origin;
  const headers: Record<string, string> = {
    'X-Api-Key': options.key ?? company.key.secret,
    ...(origin === null ? {} : { Origin: origin }),
    ...(options.clientAddress ? { 'x-test-client-address': options.clientAddress } : {}),
    ...options.headers,
  };
  // raw: a body given as text (JSON written by hand, e.g. a `__proto__` key) is sent byte for byte
  if (typeof body === 'string') return api.request('/api/v1/leads', { host: company.host, body, headers });
  return answer(testClient(api, { host: company.host }).POST('/api/v1/leads', { body: body as never, headers }));
}

/** POST /api/v1/leads of any body (the refused ones too) with a server key, through the typed client. */
export const postLead = (api: TestApi, host: string, serverKey: string, body: unknown) =>
  answer(testClient(api, { host, serverKey }).POST('/api/v1/leads', { body: body as never }));

/** GET /api/v1/leads/{reference} with the company's server key, through the typed client. */
export function readLead(api: TestApi, company: FormCompany, reference: string) {
  return answer(
    testClient(api, { host: company.host, serverKey: company.reader.secret }).GET('/api/v1/leads/{reference}', {
      params: { path: { reference } },
    }),
  );
}

/** The typed admin client's calls about a company's keys: a new one (any body), the list, a revocation. */
export function keysOf(api: TestApi, companyId: string) {
  const company = { params: { path: { company_id: companyId } } };
  return {
    create: (body: Record<string, unknown>) =>
      answer(adminOf(api).POST('/admin/v1/companies/{company_id}/keys', { ...company, body: body as never })),
    list: () => answer(adminOf(api).GET('/admin/v1/companies/{company_id}/keys', company)),
    revoke: (prefix: string) =>
      answer(
        adminOf(api).POST('/admin/v1/companies/{company_id}/keys/{prefix}/revoke', {
          params: { path: { company_id: companyId, prefix } },
        }),
      ),
  };
}

const countOf = async (api: TestApi, table: 'leads' | 'contacts' | 'events', companyId: string) =>
  Number(
    (
      await api.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The company's leads, contacts and events: what a refused form must leave unchanged. */
export async function stored(api: TestApi, companyId: string) {
  const [leads, contacts, events] = await Promise.all(
    (['leads', 'contacts', 'events'] as const).map((table) => countOf(api, table, companyId)),
  );
  return { leads, contacts, events };
}

export function expectProblem(res: Response, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.json.code).toBe(code);
}

/** Runs a request that must be refused with `status` and `code`, and checks it stored nothing. */
export async function expectRefused(
  api: TestApi,
  companyId: string,
  status: number,
  code: string,
  send: () => Promise<Response>,
): Promise<Response> {
  const before = await stored(api, companyId);
  const res = await send();
  expectProblem(res, status, code);
  expect(await stored(api, companyId)).toEqual(before);
  return res;
}

export const errorPaths = (res: Response) => ((res.json?.errors ?? []) as Array<{ path: string }>).map((e) => e.path);
