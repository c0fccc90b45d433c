import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { useClients, useWorld } from '../support/world';

/**
 * Thirty writes of one record at once, each changing what the record's lock used to join (the deal's stage, the
 * viewing's home). On PostgreSQL (DATABASE_URL, as CI runs it) they really overlap: a lock re-checked through a join on
 * a changed column lost the row and answered 404 for a record that exists. On PGlite they queue.
 */
const w = useWorld();
const [writes, reads] = useClients(w, ['write:pipelines'], ['read:pipelines']);

const thirty = <T>(send: (i: number) => Promise<T>) => Promise.all(Array.from({ length: 30 }, (_, i) => send(i)));
type Answer = { response: Response; error?: unknown };
const statuses = (answers: Answer[]) => answers.map((a) => a.response.status);
const refusals = (answers: Answer[]) => JSON.stringify(answers.filter((a) => a.response.status !== 200).map((a) => a.error));
const move = (reference: string, stage: string) =>
  writes.POST('/api/v1/deals/{reference}/move', { params: { path: { reference } }, body: { stage } });

describe('thirty concurrent writes of one record', () => {
  it('moves of a deal to alternating stages: every one 200, the deal ends on a stage sent', async () => {
    const deal = await w.deal({ value: '100' });
    const stages = ['won', 'offer'];
    const answers = await thirty((i) => move(deal.reference, stages[i % 2] ?? ''));
    expect(statuses(answers), refusals(answers)).toEqual(Array(30).fill(200));
    const read = await reads.GET('/api/v1/deals/{reference}', { params: { path: { reference: deal.reference } } });
    expect(stages).toContain(read.data?.stage);
  });

  it('PATCHes of a viewing’s home and time: every one 200, the viewing ends as one of them sent it', async () => {
    const deal = await w.deal({ home: 'marina-gate-2br-sea-view' });
    const viewing = await writes.POST('/api/v1/viewings', { body: { deal: deal.reference, time: '2030-05-01T10:00:00.000Z' } });
    expect(viewing.response.status, JSON.stringify(viewing.error)).toBe(201);
    const reference = viewing.data?.reference ?? '';
    const sent = [
      { home: 'jvc-2br-townhouse', time: '2030-05-02T10:00:00.000Z' },
      { home: 'marina-gate-2br-sea-view', time: '2030-05-03T10:00:00.000Z' },
      { home: 'marina-gate-2br-sea-view', time: '2030-05-04T10:00:00.000Z' },
    ];
    const answers = await thirty((i) =>
      writes.PATCH('/api/v1/viewings/{reference}', { params: { path: { reference } }, body: sent[i % 3] ?? {} }),
    );
    expect(statuses(answers), refusals(answers)).toEqual(Array(30).fill(200));
    const final = (await reads.GET('/api/v1/viewings/{reference}', { params: { path: { reference } } })).data;
    expect(sent).toContainEqual({ home: final?.home, time: final?.time });
  });
});

describe.skipIf(!inject('databaseUrl'))(
  'a move waiting for a write that points the deal at a person added meanwhile (PostgreSQL: two sessions)',
  () => {
    it('answers 200 with that person: the lock’s statement found nothing in its older snapshot and ran again', async () => {
      const deal = await w.deal();
      const reference = `P-${w.unique().toUpperCase()}`;
      const waiting = async () => {
        const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
      `.execute(w.api.db);
        return rows[0]?.n ?? 0;
      };
      let moved: ReturnType<typeof move> | undefined;
      // What a write of the deal does in its transaction: the deal's row locked, then pointed at a person this
      // transaction adds. The move is sent meanwhile: its statement's snapshot is older than that person.
      await w.api.db.transaction().execute(async (trx) => {
        const person = await trx
          .insertInto('contacts')
          .values({ company_id: w.company.id, reference, name: 'Added meanwhile' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx.updateTable('deals').set({ contact_id: person.id }).where('reference', '=', deal.reference).execute();
        moved = move(deal.reference, 'offer');
        for (let i = 0; i < 250 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await waiting()).toBeGreaterThan(0);
      });
      const res = await moved;
      expect(res?.response.status, JSON.stringify(res?.error)).toBe(200);
      expect(res?.data).toMatchObject({ stage: 'offer', person: reference });
    });
  },
);
