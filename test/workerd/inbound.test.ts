/**
 * The inbound receivers in the BUILT forms Worker and the default one (workerd, Neon driver → local PostgreSQL): a
 * WhatsApp message and its conversation's next one, the same delivery 20 times at once, a Property Finder call lead,
 * a Standard Webhooks lead and its replay, each signed as the source signs it; refusals change nothing.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCompany } from '../../functions/admin/companies';
import { importCatalogue } from '../../functions/catalogue/content';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { createChannel } from '../../functions/forms/inbound-channels';
import { keyringOf, newDetailsKey } from '../../lib/crypto-jwe';
import type { DatabaseHandle } from '../../lib/db/index';
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { propertyFinderLead, standardHeaders, whatsAppText } from '../forms/inbound-support';
import { bundleOf, startWorkerd, type Workerd } from './support';

const suffix = randomBytes(4).toString('hex');
const host = `i${suffix}.workerd.test`;
const appSecret = 'a-meta-app-secret-for-workerd-0001';
const details = newDetailsKey();
const keys = { DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }), DETAILS_KEY_ID: details.kid };

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
const paths: Record<string, string> = {};
const secrets: Record<string, string> = {};
let companyId = '';

beforeAll(async () => {
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_inbound_${suffix}`,
    applicationName: 'pa_workerd_inbound',
    workers: [
      { name: 'default', bundle: bundleOf('default'), bindings: { ADMIN_API: 'off', ...keys } },
      { name: 'forms', bundle: bundleOf('forms'), bindings: keys },
    ],
    seed: async (db) => {
      const keyring = keyringOf({ DETAILS_KEYS: { [details.kid]: details.key }, DETAILS_KEY_ID: details.kid });
      const company = await db.db.transaction().execute(async (trx) => {
        const made = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Inbound',
            hosts: [host],
            environment: 'production',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
          }),
        );
        await importCatalogue(trx, made, CatalogueImportInput.parse(demoCatalogue), { render: null, now: new Date() });
        return made;
      });
      companyId = company.id;
      for (const input of [
        { kind: 'whatsapp', secret: appSecret },
        { kind: 'propertyfinder' },
        { kind: 'signed', source: 'bayut' },
      ] as const) {
        const made = await createChannel(db.db, company.id, input, keyring);
        paths[input.kind] = `/api/v1/inbound/${made.token}/${input.kind}`;
        secrets[input.kind] = made.secret ?? appSecret;
      }
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

// raw: a provider's delivery is signed over its exact bytes, sent as written
async function deliver(worker: string, path: string, body: string, headers: Record<string, string>) {
  if (!mf) throw new Error('Miniflare is not running');
  const fetcher = await mf.getWorker(worker);
  const response = await fetcher.fetch(`http://${host}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

const meta = (body: string) => ({
  'X-Hub-Signature-256': `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`,
});
const leadCount = async () =>
  Number(
    (
      await handle!.db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the inbound receivers on Workers', () => {
  it('record a WhatsApp message as a lead, the next one as an activity, a forged one not at all', async () => {
    const from = `97155${suffix.replace(/\D/g, '1').slice(0, 4)}123`;
    const first = whatsAppText(from, `wamid.${suffix}.1`, 'Hello from workerd', new Date(Date.now() - 3_600_000));
    const opened = await deliver('forms', paths.whatsapp as string, first, meta(first));
    expect(opened.status, JSON.stringify(opened.json)).toBe(200);
    const next = whatsAppText(from, `wamid.${suffix}.2`, 'And a second message', new Date());
    const followed = await deliver('default', paths.whatsapp as string, next, meta(next));
    expect(followed.json).toMatchObject({ recorded: 1, leads: opened.json.leads });
    const activities = await handle!.db.selectFrom('activities').select('body').where('company_id', '=', companyId).execute();
    expect(activities).toEqual([{ body: 'And a second message' }]);
    const before = await leadCount();
    const forged = await deliver('forms', paths.whatsapp as string, next.replace('second', 'forged'), meta(next));
    expect(forged.status).toBe(403);
    expect(await leadCount()).toBe(before);
  });

  it('record the same delivery sent 20 times at once as one lead', async () => {
    const body = whatsAppText(`97156${suffix.replace(/\D/g, '2').slice(0, 4)}456`, `wamid.${suffix}.20`, 'Twenty', new Date());
    const before = await leadCount();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => deliver('forms', paths.whatsapp as string, body, meta(body))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.json.recorded === 1)).toHaveLength(1);
    expect(await leadCount()).toBe(before + 1);
  });

  it('record a Property Finder call lead and a signed lead once, refusing a stale signature', async () => {
    const pf = propertyFinderLead(`PF${suffix}`, 'call', { name: 'Omar', phone: '+971507654321' }, 'marina-gate-2br-sea-view');
    const signature = createHmac('sha256', secrets.propertyfinder as string)
      .update(pf)
      .digest('hex');
    const pfLead = await deliver('forms', paths.propertyfinder as string, pf, { 'X-Signature': signature });
    expect(pfLead.json).toMatchObject({ recorded: 1 });
    const body = JSON.stringify({ type: 'lead.created', data: { channel: 'call', email: `signed.${suffix}@example.com` } });
    const headers = standardHeaders(secrets.signed as string, `msg_${suffix}`, new Date(), body);
    expect((await deliver('forms', paths.signed as string, body, headers)).json).toMatchObject({ recorded: 1 });
    expect((await deliver('forms', paths.signed as string, body, headers)).json).toMatchObject({ repeated: 1 });
    const stale = standardHeaders(secrets.signed as string, `msg_${suffix}_old`, new Date(Date.now() - 600_000), body);
    expect((await deliver('forms', paths.signed as string, body, stale)).status).toBe(403);
    const leads = await handle!.db
      .selectFrom('leads')
      .select(['channel', 'source'])
      .where('company_id', '=', companyId)
      .where('source', 'in', ['propertyfinder', 'bayut'])
      .orderBy('source')
      .execute();
    expect(leads).toEqual([
      { channel: 'call', source: 'bayut' },
      { channel: 'call', source: 'propertyfinder' },
    ]);
  });
});
