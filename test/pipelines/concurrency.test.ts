import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipelineWorld, type PipelineWorld } from './http';

/**
 * Thirty writes of one record at once, each changing what the record's lock used to join (the deal's stage, the
 * viewing's home). On PostgreSQL (DATABASE_URL, as CI runs it) they really overlap: a lock re-checked through a join on
 * a changed column lost the row and answered 404 for a record that exists. On PGlite they queue.
 */
let w: PipelineWorld;
beforeAll(async () => {
  w = await pipelineWorld();
});
afterAll(() => w.api.close());

const thirty = <T>(send: (i: number) => Promise<T>) => Promise.all(Array.from({ length: 30 }, (_, i) => send(i)));
const statuses = (answers: Array<{ status: number }>) => answers.map((a) => a.status);

describe('thirty concurrent writes of one record', () => {
  it('moves of a deal to alternating stages: every one 200, the deal ends on a stage sent', async () => {
    const deal = await w.deal({ value: '100' });
    const stages = ['won', 'offer'];
    const answers = await thirty((i) => w.write(`/deals/${deal.reference}/move`, { stage: stages[i % 2] }));
    expect(statuses(answers), JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.text))).toEqual(
      Array(30).fill(200),
    );
    expect(stages).toContain((await w.get(`/deals/${deal.reference}`)).json.stage);
  });

  it('PATCHes of a viewing’s home and time: every one 200, the viewing ends as one of them sent it', async () => {
    const deal = await w.deal({ home: 'marina-gate-2br-sea-view' });
    const viewing = await w.write('/viewings', { deal: deal.reference, time: '2030-05-01T10:00:00.000Z' });
    expect(viewing.status, viewing.text).toBe(201);
    const sent = [
      { home: 'jvc-2br-townhouse', time: '2030-05-02T10:00:00.000Z' },
      { home: 'marina-gate-2br-sea-view', time: '2030-05-03T10:00:00.000Z' },
      { home: 'marina-gate-2br-sea-view', time: '2030-05-04T10:00:00.000Z' },
    ];
    const answers = await thirty((i) => w.write(`/viewings/${viewing.json.reference}`, sent[i % 3], {}, 'PATCH'));
    expect(statuses(answers), JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.text))).toEqual(
      Array(30).fill(200),
    );
    const final = (await w.get(`/viewings/${viewing.json.reference}`)).json;
    expect(sent).toContainEqual({ home: final.home, time: final.time });
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
      let move: ReturnType<typeof w.write> | undefined;
      // What a write of the deal does in its transaction: the deal's row locked, then pointed at a person this
      // transaction adds. The move is sent meanwhile: its statement's snapshot is older than that person.
      await w.api.db.transaction().execute(async (trx) => {
        const person = await trx
          .insertInto('contacts')
          .values({ company_id: w.company.id, reference, name: 'Added meanwhile' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx.updateTable('deals').set({ contact_id: person.id }).where('reference', '=', deal.reference).execute();
        move = w.write(`/deals/${deal.reference}/move`, { stage: 'offer' });
        for (let i = 0; i < 250 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await waiting()).toBeGreaterThan(0);
      });
      const res = await move;
      expect(res?.status, res?.text).toBe(200);
      expect(res?.json).toMatchObject({ stage: 'offer', person: reference });
    });
  },
);
