import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliver, useInboundWorld, metaSignature, propertyFinderSignature, standardHeaders, waId } from './inbound-support';

/**
 * No signed delivery gives a 500, whatever its fields hold: texts with NUL, lone surrogates, card numbers and
 * anything else, numbers and dates that are not, ids of any length. A correct signature takes each past the
 * verification, so these reach the reading and the write.
 */
const world = useInboundWorld();

const unit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('\u0000', '\ud800', '\udfff', '\ufeff', '4111 1111 1111 1111', '+971501234567', 'a@b.co'),
  },
);
const text = fc.array(unit, { maxLength: 8 }).map((parts) => parts.join(''));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

async function expectNo500(res: { status: number; headers: Headers; text: string }, sent: string) {
  expect(res.status, `${sent} → ${res.text}`).toBeLessThan(500);
  if (res.status >= 400) expect(res.headers.get('content-type')).toBe('application/problem+json');
}

describe('no signed delivery gives a 500', () => {
  it('to the WhatsApp receiver', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          from: fc.oneof(fc.constant(waId()), fc.stringMatching(/^[0-9]{1,20}$/), text),
          id: fc.oneof(text, fc.string({ minLength: 1, maxLength: 300 })),
          timestamp: fc.oneof(fc.stringMatching(/^[0-9]{1,12}$/), text),
          type: fc.oneof(fc.constantFrom('text', 'image', 'reaction', 'button', 'location'), text),
          body: text,
          name: maybe(text),
          referral: maybe(fc.record({ source_url: text, source_id: text, headline: text, ctwa_clid: text })),
        }),
        async (m) => {
          const body = JSON.stringify({
            object: 'whatsapp_business_account',
            entry: [
              {
                id: '1',
                changes: [
                  {
                    field: 'messages',
                    value: {
                      contacts: [{ wa_id: m.from, profile: { name: m.name } }],
                      messages: [
                        {
                          from: m.from,
                          id: m.id,
                          timestamp: m.timestamp,
                          type: m.type,
                          text: { body: m.body },
                          image: { caption: m.body },
                          ...(m.referral ? { referral: m.referral } : {}),
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          });
          const res = await deliver(world, world.channels.whatsapp.path, body, { 'X-Hub-Signature-256': metaSignature(body) });
          await expectNo500(res, body);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('to the Property Finder receiver', async () => {
    const { path, secret } = world.channels.propertyfinder;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id: fc.oneof(text, fc.string({ minLength: 1, maxLength: 300 })),
          type: fc.constantFrom('lead.created', 'lead.assigned', 'lead.updated', 'listing.published'),
          timestamp: maybe(fc.oneof(text, fc.constant('2026-02-30T25:61:00Z'), fc.constant('999999-01-01T00:00:00Z'))),
          channel: maybe(text),
          name: maybe(text),
          contacts: fc.array(fc.record({ type: fc.constantFrom('phone', 'email', 'mobile', 'fax'), value: text }), {
            maxLength: 3,
          }),
          reference: maybe(text),
          message: maybe(text),
        }),
        async (e) => {
          const body = JSON.stringify({
            id: `evt-${e.id}`,
            type: e.type,
            timestamp: e.timestamp,
            entity: { id: e.id, type: 'lead' },
            payload: {
              channel: e.channel,
              listing: { reference: e.reference },
              message: e.message,
              sender: { name: e.name, contacts: e.contacts },
            },
          });
          const res = await deliver(world, path, body, { 'X-Signature': propertyFinderSignature(body, secret) });
          await expectNo500(res, body);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('to the signed receiver', async () => {
    const { path, secret } = world.channels.signed;
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          channel: maybe(fc.oneof(fc.constantFrom('call', 'email', 'other'), text)),
          name: maybe(text),
          email: maybe(fc.oneof(fc.emailAddress(), text)),
          phone: maybe(fc.oneof(fc.constant('+971 50 123 4567'), text)),
          message: maybe(text),
          listing: maybe(text),
          occurred_at: maybe(fc.oneof(text, fc.constant('2026-02-30T00:00:00Z'), fc.constant('1899-12-31T23:59:59Z'))),
          details: maybe(
            fc.dictionary(fc.oneof(fc.stringMatching(/^[a-z0-9_]{1,10}$/), text), fc.oneof(text, fc.integer()), { maxKeys: 4 }),
          ),
        }),
        async (data) => {
          const body = JSON.stringify({ type: 'lead.created', data });
          const id = `no-500-${serial++}`;
          const res = await deliver(world, path, body, standardHeaders(secret, id, new Date(), body));
          await expectNo500(res, body);
        },
      ),
      { numRuns: 120 },
    );
  });
});
