import { describe, expect, it } from 'vitest';
import { maxJsonDepth } from '../../lib/json-body';
import { scopes } from '../../schema/common/scopes';
import {
  counts,
  deliver,
  type InboundWorld,
  metaSignature,
  propertyFinderSignature,
  standardHeaders,
  useInboundWorld,
} from './inbound-support';
import { createKey } from '../support/world';

/**
 * One guard for every body that arrives (lib/json-body.ts, in lib/app.ts's body limit): a signed body nested thousands
 * deep is a 400 problem before anything parses it, on every receiver, never a stack overflow (a 500); and the public
 * API's bodies go through the same guard. One world keeps the API's 64 KiB limit; the other takes 1 MiB, so that a
 * body 100,000 deep reaches the depth check instead of the size limit.
 */
const world = useInboundWorld();
const roomy = useInboundWorld({}, { MAX_BODY_BYTES: String(1024 * 1024) });

/** `depth` arrays and objects, one in the other. */
const nested = (depth: number) => `${'[{"a":'.repeat(depth / 2)}null${'}]'.repeat(depth / 2)}`;

/** A correctly signed delivery to each receiver carrying a value nested `depth` deep. */
function signedDeliveries(w: InboundWorld, depth: number) {
  const deep = nested(depth);
  const wa = `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messages":[${deep}]}}]}]}`;
  const pf = `{"id":"evt-${depth}","type":"lead.created","entity":{"id":"deep-${depth}","type":"lead"},"payload":{"sender":${deep}}}`;
  const generic = `{"type":"lead.created","data":{"email":"deep.${depth}@example.com","extra":${deep}}}`;
  return {
    whatsapp: () => deliver(w, w.channels.whatsapp.path, wa, { 'X-Hub-Signature-256': metaSignature(wa) }),
    propertyfinder: () =>
      deliver(w, w.channels.propertyfinder.path, pf, {
        'X-Signature': propertyFinderSignature(pf, w.channels.propertyfinder.secret),
      }),
    signed: () =>
      deliver(
        w,
        w.channels.signed.path,
        generic,
        standardHeaders(w.channels.signed.secret, `deep-${depth}`, new Date(), generic),
      ),
  };
}

describe('a signed body nested deep', () => {
  for (const depth of [3_000, 5_000, 100_000]) {
    for (const kind of ['whatsapp', 'propertyfinder', 'signed'] as const) {
      it(`${depth.toLocaleString('en')} deep to the ${kind} receiver: 400 invalid_json, nothing stored`, async () => {
        const before = await counts(roomy);
        const res = await signedDeliveries(roomy, depth)[kind]();
        expect(res.status, res.text).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.json).toMatchObject({ code: 'invalid_json', detail: expect.stringContaining(`${maxJsonDepth} levels`) });
        expect(await counts(roomy)).toEqual(before);
      });
    }
  }

  it('over the API’s size limit (64 KiB), 100,000 deep is refused for its size first (413)', async () => {
    for (const send of Object.values(signedDeliveries(world, 100_000))) {
      const res = await send();
      expect(res.status, res.text).toBe(413);
      expect(res.json.code).toBe('payload_too_large');
    }
  });

  it('takes a delivery nested as deep as the guard allows', async () => {
    const body = `{"type":"lead.created","data":{"email":"bound@example.com","extra":${nested(maxJsonDepth - 2)}}}`;
    const { path, secret } = world.channels.signed;
    const res = await deliver(world, path, body, standardHeaders(secret, 'at-the-bound', new Date(), body));
    expect(res.status, res.text).toBe(200);
    expect(res.json.recorded).toBe(1);
  });
});

describe('a signed message id too long to keep', () => {
  it('is a 400 at webhook-id, never a 500, and stores nothing', async () => {
    const body = JSON.stringify({ type: 'lead.created', data: { email: 'long.id@example.com' } });
    const { path, secret } = world.channels.signed;
    const before = await counts(world);
    const res = await deliver(world, path, body, standardHeaders(secret, 'x'.repeat(201), new Date(), body));
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors).toEqual([{ path: 'webhook-id', code: 'too_big', message: expect.any(String) }]);
    expect(await counts(world)).toEqual(before);
  });
});

describe('the public API’s bodies, through the same guard', () => {
  it('answers 400 invalid_json to a body nested 30,000 deep on a route that takes any value (PATCH /job-charges)', async () => {
    const key = (await createKey(world.api, world.company.id, { scopes: [...scopes] })).secret;
    // Arrays only (two bytes a level), so that 30,000 levels fit in the 64 KiB limit.
    const deep = '['.repeat(30_000) + ']'.repeat(30_000);
    // Each body is sent as text: nested deeper than JSON.stringify (the typed client's) would write it.
    const sends = [
      () =>
        // raw: a body nested 30,000 deep, as text (deeper than the typed client's JSON.stringify writes)
        world.api.request(`/api/v1/job-charges/${crypto.randomUUID()}`, {
          method: 'PATCH',
          host: world.company.host,
          key,
          body: `{"description":${deep}}`,
        }),
      () =>
        // raw: a body nested 30,000 deep, as text (deeper than the typed client's JSON.stringify writes)
        world.api.request('/api/v1/leads', { host: world.company.host, key, body: `{"consent":true,"details":{"a":${deep}}}` }),
      () =>
        // raw: a body nested 30,000 deep, as text (deeper than the typed client's JSON.stringify writes)
        world.api.admin(`/companies/${world.company.id}`, { method: 'PATCH', body: `{"settings":${deep}}` }),
    ];
    for (const send of sends) {
      const res = await send();
      expect(res.status, res.text).toBe(400);
      expect(res.json.code).toBe('invalid_json');
    }
  });
});
