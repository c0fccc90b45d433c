import { describe, expect, it } from 'vitest';
import {
  counts,
  deliver,
  useInboundWorld,
  metaSignature,
  propertyFinderLead,
  propertyFinderSignature,
  readLead,
  wamid,
} from './inbound-support';

/**
 * A source's delivery is never refused for one bad item (docs/api-reference.md, "Inbound channels"): what can be kept
 * is kept, each item that cannot is recorded as failed — in the answer (`failed`, `failures`), once in the audit log
 * (`inbound.item_failed`) and by its id, so that the source's retry records nothing twice — and the answer is 2xx.
 */
const world = useInboundWorld();

const auditRows = (action: string) =>
  world.api.db
    .selectFrom('audit_log')
    .select(['actor', 'subject', 'details'])
    .where('company_id', '=', world.company.id)
    .where('action', '=', action)
    .orderBy('id')
    .execute();

/** One notification carrying several messages, as Meta batches them (`messages` and their senders' `contacts`). */
function whatsAppBatch(messages: Array<Record<string, unknown>>, contacts: Array<Record<string, unknown>>) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '97145550100', phone_number_id: '106540352242922' },
              contacts,
              messages,
            },
          },
        ],
      },
    ],
  });
}

const at = () => String(Math.floor(Date.now() / 1000));
const text = (from: string, id: string, body: string) => ({ from, id, timestamp: at(), type: 'text', text: { body } });
const sendWhatsApp = (body: string) =>
  deliver(world, world.channels.whatsapp.path, body, { 'X-Hub-Signature-256': metaSignature(body) });

describe('a WhatsApp delivery with a message that cannot be kept', () => {
  it('keeps the first lead, reports the second as failed, answers 200; sent again, records nothing twice', async () => {
    const [kept, failed] = [wamid(), wamid()];
    const body = whatsAppBatch(
      [text('971501112244', kept, 'Is the Marina flat free?'), text('12345', failed, 'Hello')],
      [
        { profile: { name: 'Omar Said' }, wa_id: '971501112244' },
        { profile: { name: 'Short Number' }, wa_id: '12345' },
      ],
    );
    const before = await counts(world);
    const first = await sendWhatsApp(body);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({
      recorded: 1,
      repeated: 0,
      failed: 1,
      failures: [{ id: failed, code: 'invalid_phone', path: 'phone' }],
    });
    expect(first.json.leads).toHaveLength(1);
    const lead = await readLead(world, first.json.leads[0]);
    expect(lead).toMatchObject({ channel: 'whatsapp', message: 'Is the Marina flat free?', sent: { phone: '+971501112244' } });
    const afterFirst = await counts(world);
    // One lead and one new person; both messages' ids are recorded (the second with its failure), no lead for it.
    expect(afterFirst).toMatchObject({ leads: before.leads + 1, contacts: before.contacts + 1, messages: before.messages + 2 });
    const failedRow = await world.api.db
      .selectFrom('inbound_messages')
      .select(['lead_id', 'failure'])
      .where('company_id', '=', world.company.id)
      .where('message_id', '=', failed)
      .executeTakeFirstOrThrow();
    expect(failedRow).toEqual({ lead_id: null, failure: { code: 'invalid_phone', path: 'phone' } });
    const audited = (await auditRows('inbound.item_failed')).filter((row) => row.details.message_id === failed);
    expect(audited).toEqual([
      {
        actor: 'system',
        subject: world.channels.whatsapp.id,
        details: { kind: 'whatsapp', source: 'whatsapp', message_id: failed, code: 'invalid_phone', path: 'phone' },
      },
    ]);

    // Meta sends it again (and again, at once): the lead is a repeat, the failed message fails again, nothing is added.
    const again = await Promise.all(Array.from({ length: 5 }, () => sendWhatsApp(body)));
    for (const res of again) {
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ recorded: 0, repeated: 1, failed: 1, leads: first.json.leads });
    }
    expect(await counts(world)).toEqual(afterFirst);
    expect((await auditRows('inbound.item_failed')).filter((row) => row.details.message_id === failed)).toHaveLength(1);
  });

  it('keeps the others when a message is not in Meta’s shape (a bad timestamp, no id), each failed once', async () => {
    const [before, after] = [wamid(), wamid()];
    const noId = { from: '971501112255', timestamp: at(), type: 'text', text: { body: 'no id' } };
    const badTime = { ...text('971501112266', wamid(), 'when?'), timestamp: 'yesterday' };
    const body = whatsAppBatch(
      [text('971501112277', before, 'first'), noId, badTime, text('971501112288', after, 'last')],
      [{ wa_id: 'x'.repeat(40) }],
    );
    const start = await counts(world);
    const res = await sendWhatsApp(body);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ recorded: 2, failed: 2 });
    const [missing, timestamp] = res.json.failures;
    expect(missing).toMatchObject({ id: expect.stringMatching(/^unread:/), code: 'invalid_type', path: 'id' });
    expect(timestamp).toMatchObject({ id: badTime.id, code: 'invalid_format', path: 'timestamp' });
    expect(await counts(world)).toMatchObject({ leads: start.leads + 2 });
    const audited = await auditRows('inbound.item_failed');
    const again = await sendWhatsApp(body);
    expect(again.json).toMatchObject({ recorded: 0, repeated: 2, failed: 2, failures: res.json.failures });
    expect(await auditRows('inbound.item_failed')).toEqual(audited);
  });
});

describe('a Property Finder lead that cannot all be kept', () => {
  it('keeps a lead whose phone cannot be read when it has an email, without the phone (named in dropped)', async () => {
    const { path, secret } = world.channels.propertyfinder;
    const body = propertyFinderLead(
      `PF-${wamid()}`,
      'email',
      { name: 'Mira Khan', phone: '12', email: 'mira.khan@example.com' },
      'marina-gate-2br-sea-view',
    );
    const res = await deliver(world, path, body, { 'X-Signature': propertyFinderSignature(body, secret) });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ recorded: 1, failed: 0, dropped: ['phone'] });
    const lead = await readLead(world, res.json.leads[0]);
    expect(lead.sent).toMatchObject({ email: 'mira.khan@example.com', phone: null });
  });

  it('answers 200 with the lead failed when no way to reach the enquirer is left; a retry records nothing', async () => {
    const { path, secret } = world.channels.propertyfinder;
    const id = `PF-${wamid()}`;
    const body = propertyFinderLead(id, 'call', { name: 'No Number', phone: '12' }, 'marina-gate-2br-sea-view');
    const before = await counts(world);
    const headers = { 'X-Signature': propertyFinderSignature(body, secret) };
    const res = await deliver(world, path, body, headers);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      recorded: 0,
      failed: 1,
      leads: [],
      failures: [{ id, code: 'invalid_phone', path: 'phone' }],
    });
    const again = await deliver(world, path, body, headers);
    expect(again.json).toMatchObject({ recorded: 0, failed: 1 });
    expect(await counts(world)).toEqual({ ...before, messages: before.messages + 1 });
    expect((await auditRows('inbound.item_failed')).filter((row) => row.details.message_id === id)).toHaveLength(1);
  });
});
