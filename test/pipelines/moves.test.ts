import { describe, expect, it } from 'vitest';
import { moveWarnings } from '../../functions/pipelines/deal-stages';
import { leasesOf, useClients, useWorld } from '../support/world';
import { stagesOf } from './support';

const w = useWorld({ pipelines: true });
const [writes, reads] = useClients(w, ['write:pipelines'], ['read:pipelines']);

/** POST /deals/{reference}/move of a body as sent (any JSON: the refusals too). */
const move = (reference: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  writes.POST('/api/v1/deals/{reference}/move', { params: { path: { reference } }, body: body as never, headers });
const read = async (reference: string) =>
  (await reads.GET('/api/v1/deals/{reference}', { params: { path: { reference } } })).data;
const sales = stagesOf(w, 'sales');
const codes = (res: { data?: { warnings: Array<{ code: string }> } }) => res.data?.warnings.map((x) => x.code);

describe('POST /deals/{reference}/move', () => {
  it('moves in any direction within the pipeline, recording deal.stage_changed, probability following the stage', async () => {
    const deal = await w.deal({ value: '100' });
    const forward = await move(deal.reference, { stage: 'offer' });
    expect(forward.response.status, JSON.stringify(forward.error)).toBe(200);
    expect(forward.data).toMatchObject({ stage: 'offer', status: 'open', probability: 60, outcome: null, warnings: [] });
    const back = await move(deal.reference, { stage: 'new' });
    expect(back.data).toMatchObject({ stage: 'new', probability: 10, warnings: [] });
    expect(await w.eventsOf(deal.reference)).toEqual(['deal.stage_changed', 'deal.stage_changed']);
  });

  it('keeps the deal’s own probability on a move', async () => {
    const deal = await w.deal({ probability: 42 });
    expect((await move(deal.reference, { stage: 'offer' })).data).toMatchObject({ probability: 42, probability_source: 'deal' });
  });

  it('refuses a stage key of another pipeline or none (400), and moves nothing', async () => {
    const deal = await w.deal();
    for (const stage of ['application', 'nope']) {
      const res = await move(deal.reference, { stage });
      expect(res.response.status, JSON.stringify(res.error)).toBe(400);
      expect(res.error?.errors).toEqual([expect.objectContaining({ path: 'stage', code: 'unknown_stage' })]);
    }
    expect((await move(deal.reference, {})).response.status).toBe(400);
    expect((await move('D-0000000000', { stage: 'new' })).response.status).toBe(404);
    expect((await read(deal.reference))?.stage).toBe('new');
    expect(await w.eventsOf(deal.reference)).toEqual([]);
  });

  it('changes nothing on a move to the stage the deal is on', async () => {
    const deal = await w.deal();
    const res = await move(deal.reference, { stage: 'new' });
    expect(res.response.status).toBe(200);
    expect(res.data?.warnings).toEqual([]);
    expect(res.response.headers.get('ETag')).toBe('"v1"');
    expect(await w.eventsOf(deal.reference)).toEqual([]);
  });

  it('closes a deal on a won stage: deal.won, outcome set; won without a value warns no_value', async () => {
    w.api.clock.set(new Date('2027-02-03T10:00:00.000Z'));
    try {
      const deal = await w.deal();
      const res = await move(deal.reference, { stage: 'won', reason: 'Signed at asking' });
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data).toMatchObject({
        status: 'won',
        probability: 100,
        outcome: { closed_at: '2027-02-03T10:00:00.000Z', reason: 'Signed at asking' },
      });
      expect(codes(res)).toEqual(['no_value']);
      expect(await w.eventsOf(deal.reference)).toEqual(['deal.stage_changed', 'deal.won']);
      const valued = await w.deal({ value: '5' });
      expect(codes(await move(valued.reference, { stage: 'won' }))).toEqual([]);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('closes a deal on a lost stage: deal.lost; lost without a reason warns no_lost_reason', async () => {
    const deal = await w.deal();
    const res = await move(deal.reference, { stage: 'lost' });
    expect(res.data).toMatchObject({ status: 'lost', outcome: { reason: null } });
    expect(codes(res)).toEqual(['no_lost_reason']);
    const reasoned = await w.deal();
    expect(codes(await move(reasoned.reference, { stage: 'lost', reason: 'Bought elsewhere' }))).toEqual([]);
    expect(await w.eventsOf(deal.reference)).toEqual(['deal.lost', 'deal.stage_changed']);
  });

  it('reopens a closed deal moved to an open stage, with the warning reopened; a won deal lost is deal.lost', async () => {
    const deal = await w.deal({ value: '7' });
    await move(deal.reference, { stage: 'won' });
    const reopened = await move(deal.reference, { stage: 'offer' });
    expect(reopened.data).toMatchObject({ status: 'open', outcome: null });
    expect(codes(reopened)).toEqual(['reopened']);
    await move(deal.reference, { stage: 'won' });
    const lost = await move(deal.reference, { stage: 'lost', reason: 'Finance fell through' });
    expect(lost.data).toMatchObject({ status: 'lost', outcome: { reason: 'Finance fell through' } });
    expect(await w.eventsOf(deal.reference)).toEqual([
      'deal.stage_changed',
      'deal.won',
      'deal.stage_changed',
      'deal.stage_changed',
      'deal.won',
      'deal.lost',
      'deal.stage_changed',
    ]);
  });

  it('warns no_lease for a leasing deal won without its lease (a draft or active lease of its home and person)', async () => {
    const person = await w.contact();
    const home = 'marina-gate-1br-furnished';
    const noLease = await w.deal({ person, pipeline: 'leasing', home, value: '90000' });
    expect(codes(await move(noLease.reference, { stage: 'won' }))).toEqual(['no_lease']);
    const landlord = await w.contact();
    const lease = await leasesOf(w).postRaw({
      home,
      renter: person,
      landlord,
      term: { start: '2027-01-01', end: '2027-12-31' },
      rent: { amount: '90000', period: 'year' },
      schedule: { payments: 4 },
    });
    expect(lease.response.status, JSON.stringify(lease.error)).toBe(201);
    const leased = await w.deal({ person, pipeline: 'leasing', home, value: '90000' });
    expect(codes(await move(leased.reference, { stage: 'won' }))).toEqual([]);
    const otherPerson = await w.deal({ pipeline: 'leasing', home, value: '90000' });
    expect(codes(await move(otherPerson.reference, { stage: 'won' }))).toEqual(['no_lease']);
    const homeless = await w.deal({ person, pipeline: 'leasing', value: '90000' });
    expect(codes(await move(homeless.reference, { stage: 'won' }))).toEqual(['no_lease']);
    const sale = await w.deal({ person, home: 'marina-gate-2br-sea-view', value: '1' });
    expect(codes(await move(sale.reference, { stage: 'won' }))).toEqual([]);
  });

  it('refuses a stale If-Match (412) and moves nothing', async () => {
    const deal = await w.deal();
    await move(deal.reference, { stage: 'offer' });
    const stale = await move(deal.reference, { stage: 'won' }, { 'If-Match': '"v1"' });
    expect(stale.response.status).toBe(412);
    expect((await read(deal.reference))?.stage).toBe('offer');
  });
});

describe('stages in use', () => {
  it('cannot be deleted, nor change kind, while a deal sits on them (409 stage_in_use)', async () => {
    const deal = await w.deal();
    await move(deal.reference, { stage: 'offer' });
    const deleted = await sales.remove('offer');
    expect(deleted.response.status).toBe(409);
    expect(deleted.error?.code).toBe('stage_in_use');
    const rekind = await sales.put('offer', { name: { en: 'Offer' }, kind: 'won', probability: 60 });
    expect(rekind.error?.code).toBe('stage_in_use');
    const renamed = await sales.put('offer', { name: { en: 'Offer' }, kind: 'open', probability: 65 });
    expect(renamed.response.status).toBe(200);
    expect((await read(deal.reference))?.probability).toBe(65);
  });
});

describe('moveWarnings', () => {
  const base = { purpose: 'sales' as const, value: '1', reason: 'r', hasLease: true };
  it('names each rule alone', () => {
    expect(moveWarnings({ ...base, from: 'open', to: 'open' })).toEqual([]);
    expect(moveWarnings({ ...base, from: 'lost', to: 'open' }).map((x) => x.code)).toEqual(['reopened']);
    expect(moveWarnings({ ...base, from: 'open', to: 'won', value: '0.00' }).map((x) => x.code)).toEqual(['no_value']);
    expect(moveWarnings({ ...base, from: 'open', to: 'won', purpose: 'leasing', hasLease: false }).map((x) => x.code)).toEqual([
      'no_lease',
    ]);
    expect(moveWarnings({ ...base, from: 'won', to: 'lost', reason: undefined }).map((x) => x.code)).toEqual(['no_lost_reason']);
  });

  it('races an admin deleting the stage it moves to without a 500: the stage goes (move 400) or stays with the deal (409)', async () => {
    const deal = await w.deal();
    for (let round = 0; round < 8; round++) {
      const key = `tmp${round}`;
      const stage = { name: { en: 'Temporary' }, kind: 'open', probability: 30 };
      expect((await sales.put(key, stage)).response.status).toBe(201);
      const [removed, moved] = await Promise.all([sales.remove(key), move(deal.reference, { stage: key })]);
      const outcome = `${removed.response.status}/${moved.response.status}`;
      expect(['204/400', '409/200'], `${outcome} ${JSON.stringify(moved.error)} ${JSON.stringify(removed.error)}`).toContain(
        outcome,
      );
      const now = (await read(deal.reference))?.stage;
      expect(now).toBe(moved.response.status === 200 ? key : 'new');
      if (moved.response.status === 200) expect((await move(deal.reference, { stage: 'new' })).response.status).toBe(200);
      if (removed.response.status === 409) expect((await sales.remove(key)).response.status).toBe(204);
    }
  });
});
