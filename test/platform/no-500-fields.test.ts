import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BodyField,
  type BodyOperation,
  bodyOperations,
  bodyWith,
  type Doc,
  numberLike,
  type Pick,
  pathOf,
  plainText,
  stringField,
} from '../support/body-fields';
import { scopes } from '../../schema/common/scopes';
import { createTestApi, type TestApi } from '../support/harness';
import { createKey, demoCompany } from '../support/world';

/**
 * The no-500 property, field by field: every number, amount and date field of every route's body (public and admin,
 * read from the OpenAPI documents, so a new route is covered as it lands) is sent strings that are not numbers, and
 * every text field is sent lone surrogates and U+0000 (as a raw JSON body: `"\ud800"` escapes, which JSON.parse turns
 * into a lone surrogate). Each answer is a 400 problem, never a 500 and never a write of something else than was sent.
 */

const badNumbers = ['abc', '1e999', 'NaN', '', '1.2.3', '9'.repeat(400)];
/** A high surrogate alone, a low one alone, a pair reversed, and U+0000. */
const badTexts = ['\ud800', '\udc00', '\udc00\ud800', 'a\u0000b'];

let api: TestApi;
let company: { id: string; host: string };
let operations: Array<{ doc: Doc; op: BodyOperation }>;
let serverKey: string;
let publishableKey: string;
const origin = 'https://fuzz.example.com';

beforeAll(async () => {
  const fast = '1000000';
  api = await createTestApi({
    env: {
      RATE_LIMIT_SERVER_KEY_PER_MINUTE: fast,
      RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: fast,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: fast,
    },
  });
  company = await demoCompany(api, { team_module: true, bookings_enabled: true });
  serverKey = (await createKey(api, company.id, { scopes: [...scopes] })).secret;
  publishableKey = (
    await createKey(api, company.id, { kind: 'publishable', origins: [origin], lead_types: ['enquiry', 'booking'] })
  ).secret;
  const docs = await Promise.all(
    ['/api/v1/openapi.json', '/admin/v1/openapi.json'].map(
      async (path) =>
        // raw: the documents are not operations they declare
        (await api.request(path)).json,
    ),
  );
  // The inbound receivers verify the source's signature over the raw body before reading a field, at a secret address:
  // a body sent here is refused (404, 403) before any field is parsed. Their own property sends such fields signed
  // (test/forms/inbound-no-500.test.ts).
  operations = docs.flatMap((doc) =>
    bodyOperations(doc)
      .filter((op) => op.access.kind !== 'inbound')
      .map((op) => ({ doc, op })),
  );
}, 60_000);
afterAll(() => api.close());

/** Sends the operation with `value` at the field, as the operation's caller would (its key kind from `x-access`). */
async function send(doc: Doc, op: BodyOperation, field: BodyField, value: string, run: number) {
  let turn = run;
  const pick: Pick = (n) => (n <= 1 ? 0 : turn++ % n);
  const raw = JSON.stringify(bodyWith(doc, field, value, pick));
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  let key: string | undefined;
  if (op.access.kind === 'admin') key = api.adminToken;
  else if (op.access.kind === 'form') Object.assign(headers, { 'X-Api-Key': publishableKey, Origin: origin });
  else if (op.access.kind === 'server') key = serverKey;
  const path = pathOf(doc, op, company.id, pick);
  // raw: every body field of every operation is sent bad values (raw JSON bodies), built from the documents
  const res = await api.request(path, { method: op.method, host: company.host, key, headers, body: raw });
  return { res, sent: `${op.method} ${path} ${raw} → ${res.status} ${res.text}` };
}

/** What is wrong with an answer that should be a 400 problem, or nothing. */
function notProblem400(res: Awaited<ReturnType<typeof send>>['res']): string | undefined {
  if (res.status !== 400) return `status ${res.status}`;
  if (res.headers.get('content-type') !== 'application/problem+json') return 'not application/problem+json';
  return undefined;
}

const where = (field: BodyField) => field.path.join('.');

describe('no bad number or text in any body field gives a 500', () => {
  it('finds the bodies and their fields in the documents', () => {
    const fields = operations.flatMap(({ op }) => op.fields);
    expect(operations.length).toBeGreaterThan(40);
    expect(fields.filter((f) => numberLike(f.leaf)).length).toBeGreaterThan(100);
    expect(fields.filter((f) => plainText(f.leaf)).length).toBeGreaterThan(100);
    const names = operations.flatMap(({ op }) => op.fields.map((f) => `${op.method} ${op.path} ${where(f)}`));
    for (const expected of [
      'POST /api/v1/leases fee.value',
      'POST /api/v1/leases/{reference}/end deposit.deductions',
      'PUT /admin/v1/companies/{company_id}/departments/{key} name.en',
      'POST /admin/v1/companies/{company_id}/team bio.en',
    ])
      expect(names).toContain(expected);
  });

  it('answers 400 (a problem) to a string that is not a number in every number, amount and date field', async () => {
    const wrong: string[] = [];
    for (const { doc, op } of operations) {
      for (const field of op.fields.filter((f) => numberLike(f.leaf) && !f.takesText)) {
        for (const [i, value] of badNumbers.entries()) {
          // Each value picks other enum values and union branches around the field (`i`): a fee's kind, say.
          const { res, sent } = await send(doc, op, field, value, i);
          const problem = notProblem400(res);
          if (problem) wrong.push(`${where(field)}: ${problem}: ${sent}`);
        }
      }
    }
    expect(wrong.map((w) => w.slice(0, 600))).toEqual([]);
  }, 300_000);

  it('answers 400 invalid_text at the field to lone surrogates and U+0000 in every text field', async () => {
    const wrong: string[] = [];
    for (const { doc, op } of operations) {
      for (const field of op.fields.filter((f) => stringField(f.leaf))) {
        for (const [i, value] of badTexts.entries()) {
          const { res, sent } = await send(doc, op, field, value, i);
          // The raw body carries the escapes, as a client's JSON would.
          expect(sent).toMatch(/\\u(d[89a-f][0-9a-f]{2}|0000)/);
          const errors: Array<{ path: string; code: string }> = res.json?.errors ?? [];
          const at = errors.find((e) => e.path === where(field));
          const problem =
            notProblem400(res) ??
            (plainText(field.leaf) && !field.inUnion
              ? at?.code === 'invalid_text'
                ? undefined
                : 'no invalid_text at the field'
              : errors.some((e) => where(field).startsWith(e.path))
                ? undefined
                : 'no error at the field');
          if (problem) wrong.push(`${where(field)}: ${problem}: ${sent}`);
        }
      }
    }
    expect(wrong.map((w) => w.slice(0, 600))).toEqual([]);
  }, 300_000);

  it('stores text exactly as sent (pairs, Arabic) and refuses a lone surrogate or U+0000 before writing anything', async () => {
    const host = company.host;
    /** POST /contacts of a body as written, its escapes in the bytes, as a client sends it: JSON.parse makes the lone surrogate. */
    const postText = (body: string) =>
      // raw: a JSON body as written, its \u escapes in the bytes
      api.request('/api/v1/contacts', { host, key: serverKey, body, headers: { 'Content-Type': 'application/json' } });
    const refused = await postText('{"name":"Nora \\ud800","email":"nora.fields@example.com"}');
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.errors).toEqual([expect.objectContaining({ path: 'name', code: 'invalid_text' })]);
    const nul = await postText('{"name":"Nora\\u0000","email":"nora.fields@example.com"}');
    expect(nul.json.errors).toEqual([expect.objectContaining({ path: 'name', code: 'invalid_text' })]);
    const stored = () =>
      api.db
        .selectFrom('contacts')
        .select('name')
        .where('company_id', '=', company.id)
        .where('email', '=', 'nora.fields@example.com')
        .execute();
    expect(await stored()).toEqual([]);
    const kept = await postText('{"name":"Nora \\ud83d\\ude00 نورة","email":"nora.fields@example.com"}');
    expect(kept.status, kept.text).toBe(201);
    expect(await stored()).toEqual([{ name: 'Nora \u{1F600} نورة' }]);
    const department = `/admin/v1/companies/${company.id}/departments/fields`;
    const admin = { key: api.adminToken, method: 'PUT', headers: { 'Content-Type': 'application/json' } };
    // raw: a JSON body as written, its \u escapes in the bytes
    const lone = await api.request(department, { ...admin, body: '{"name":{"en":"\\ud800"}}' });
    expect(lone.status, lone.text).toBe(400);
    expect(lone.json.errors).toEqual([expect.objectContaining({ path: 'name.en', code: 'invalid_text' })]);
    const departments = api.db.selectFrom('departments').select('key').where('company_id', '=', company.id);
    expect(await departments.where('key', '=', 'fields').execute()).toEqual([]);
  });
});
