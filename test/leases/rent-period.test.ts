import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rentPeriod } from '../../lib/rent-invoices';
import { anyDate, plusDays } from './support';

/**
 * The period a rent receipt's invoice states (lib/rent-invoices.ts `rentPeriod`): from the payment's schedule row's due
 * day to the day before the next row's, the last row to the lease's end, a replacement the row it replaces; else the
 * month the payment is due in; its frequency when 1, 3, 6 or 12 months to the day. Until 2026-12-01 PostgreSQL found
 * it in the read statement; that statement stays here as the oracle the TypeScript must agree with on any schedule.
 */
type Row = { id: string; replaces_id: string | null; due_on: string };
const lease = (ends_on: string) => ({ id: 'lease', reference: 'T-1', ends_on });
const period = (schedule: Row[], id: string, ends_on: string) => {
  const payment = schedule.find((row) => row.id === id) as Row;
  return rentPeriod({ lease: lease(ends_on), payment: { id, due_on: payment.due_on }, schedule });
};

describe('the period of a rent payment', () => {
  const quarterly: Row[] = [
    { id: 'a', replaces_id: null, due_on: '2027-01-01' },
    { id: 'b', replaces_id: null, due_on: '2027-04-01' },
    { id: 'c', replaces_id: null, due_on: '2027-07-01' },
    { id: 'd', replaces_id: null, due_on: '2027-10-01' },
  ];

  it('runs from its row’s due day to the day before the next row’s, the last row to the lease’s end', () => {
    expect(period(quarterly, 'a', '2027-12-31')).toEqual({ start: '2027-01-01', end: '2027-03-31', frequency: 'QTR' });
    expect(period(quarterly, 'd', '2027-12-31')).toEqual({ start: '2027-10-01', end: '2027-12-31', frequency: 'QTR' });
    expect(period(quarterly, 'd', '2027-11-15')).toEqual({ start: '2027-10-01', end: '2027-11-15', frequency: null });
  });

  it('gives a replacement (of a replacement) the period of the schedule row it stands for, whatever its own day', () => {
    const replaced: Row[] = [
      ...quarterly,
      { id: 'b2', replaces_id: 'b', due_on: '2027-04-20' },
      { id: 'b3', replaces_id: 'b2', due_on: '2027-08-05' },
    ];
    expect(period(replaced, 'b3', '2027-12-31')).toEqual({ start: '2027-04-01', end: '2027-06-30', frequency: 'QTR' });
    expect(period(replaced, 'b2', '2027-12-31')).toEqual(period(replaced, 'b', '2027-12-31'));
  });

  it('falls back to the month the payment is due in when its row is due after the lease’s end', () => {
    expect(period(quarterly, 'd', '2027-09-30')).toEqual({ start: '2027-10-01', end: '2027-10-31', frequency: 'MTH' });
    const leap: Row[] = [{ id: 'x', replaces_id: null, due_on: '2028-02-14' }];
    expect(period(leap, 'x', '2028-01-31')).toEqual({ start: '2028-02-01', end: '2028-02-29', frequency: 'MTH' });
  });

  it('counts a month to the day, clamped to the month’s last (01-31 to 02-27 is one month)', () => {
    const monthly: Row[] = [
      { id: 'm1', replaces_id: null, due_on: '2027-01-31' },
      { id: 'm2', replaces_id: null, due_on: '2027-02-28' },
    ];
    expect(period(monthly, 'm1', '2027-12-31')).toEqual({ start: '2027-01-31', end: '2027-02-27', frequency: 'MTH' });
    const halfYear: Row[] = [
      { id: 'h1', replaces_id: null, due_on: '2027-03-01' },
      { id: 'h2', replaces_id: null, due_on: '2027-09-01' },
    ];
    expect(period(halfYear, 'h1', '2028-02-29')).toEqual({ start: '2027-03-01', end: '2027-08-31', frequency: 'HYR' });
    expect(period(halfYear, 'h2', '2028-02-29')).toEqual({ start: '2027-09-01', end: '2028-02-29', frequency: 'HYR' });
    expect(period(halfYear, 'h2', '2028-03-30')).toEqual({ start: '2027-09-01', end: '2028-03-30', frequency: null });
    // From a leap day, a year later is 2029-02-28 (clamped): the period ending the day before is the year.
    const leapYear: Row[] = [{ id: 'y', replaces_id: null, due_on: '2028-02-29' }];
    expect(period(leapYear, 'y', '2029-02-27').frequency).toBe('YRL');
    expect(period(leapYear, 'y', '2029-02-28').frequency).toBeNull();
  });

  describe('agrees with the statement PostgreSQL ran before', () => {
    let db: PGlite;
    beforeAll(async () => {
      db = await PGlite.create();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
    });

    // The old read's period (lib/rent-invoices.ts before 2026-12-01), over a schedule sent as json instead of the table.
    const oracle = `with s as (select * from json_to_recordset($1::json) as x(id text, replaces_id text, due_on date))
      select rs.start::text as start, rs.finish::text as "end",
        case when (rs.start + interval '1 month')::date = rs.finish + 1 then 'MTH'
          when (rs.start + interval '3 months')::date = rs.finish + 1 then 'QTR'
          when (rs.start + interval '6 months')::date = rs.finish + 1 then 'HYR'
          when (rs.start + interval '12 months')::date = rs.finish + 1 then 'YRL' end as frequency
      from (select $2::text as id, $3::date as due_on, $4::date as ends_on) rp
      cross join lateral (
        with recursive chain(id, replaces_id, due_on) as (
          select rp.id, (select s.replaces_id from s where s.id = rp.id), rp.due_on
          union all
          select o.id, o.replaces_id, o.due_on from s o join chain on o.id = chain.replaces_id
        )
        select c.due_on as row_due,
          (select min(n.due_on) - 1 from s n where n.replaces_id is null and n.due_on > c.due_on) as next_day
        from chain c where c.replaces_id is null limit 1
      ) as sched
      cross join lateral (
        select case when coalesce(sched.next_day, rp.ends_on) >= sched.row_due then sched.row_due
            else date_trunc('month', rp.due_on::timestamp)::date end as start,
          case when coalesce(sched.next_day, rp.ends_on) >= sched.row_due then coalesce(sched.next_day, rp.ends_on)
            else (date_trunc('month', rp.due_on::timestamp) + interval '1 month' - interval '1 day')::date end as finish
      ) as rs`;

    /** A schedule: rows 1 to 400 days apart, some replaced (a chain of up to 3), and the lease's end near its last row. */
    const anySchedule = fc
      .record({
        first: anyDate.filter((d) => d >= '1990-01-01' && d <= '2990-01-01'),
        gaps: fc.array(fc.oneof(fc.constantFrom(28, 30, 31, 91, 92, 182, 365, 366), fc.integer({ min: 1, max: 400 })), {
          minLength: 0,
          maxLength: 6,
        }),
        replacements: fc.array(fc.record({ row: fc.nat(), shift: fc.integer({ min: -40, max: 200 }) }), { maxLength: 4 }),
        end: fc.integer({ min: -400, max: 400 }),
        pick: fc.nat(),
      })
      .map(({ first, gaps, replacements, end, pick }) => {
        const rows: Row[] = [{ id: 'r0', replaces_id: null, due_on: first }];
        for (const [i, gap] of gaps.entries()) {
          rows.push({ id: `r${i + 1}`, replaces_id: null, due_on: plusDays(rows[i]!.due_on, gap) });
        }
        for (const [i, { row, shift }] of replacements.entries()) {
          const replaced = rows[row % rows.length]!;
          rows.push({ id: `x${i}`, replaces_id: replaced.id, due_on: plusDays(replaced.due_on, shift) });
        }
        const last = rows.filter((r) => r.replaces_id === null).at(-1)!.due_on;
        return { rows, endsOn: plusDays(last, end), payment: rows[pick % rows.length]! };
      });

    it('on any schedule, replacements and lease end', async () => {
      await fc.assert(
        fc.asyncProperty(anySchedule, async ({ rows, endsOn, payment }) => {
          const { rows: expected } = await db.query(oracle, [JSON.stringify(rows), payment.id, payment.due_on, endsOn]);
          const found = rentPeriod({ lease: lease(endsOn), payment: { id: payment.id, due_on: payment.due_on }, schedule: rows });
          expect(found).toEqual(expected[0]);
        }),
        { numRuns: 300 },
      );
    });
  });
});
