import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availability, book, bookingBody, day, postBooking, quote, step } from '../stay/support';
import { maintenanceWorld, type World } from './http';

let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

const schedule = (reference: string, body: Record<string, unknown>) => w.write(`/jobs/${reference}/schedule`, body);
const blocked = async (home: string, from: string, to: string) =>
  (await availability(w.ctx, home, `?from=${from}&to=${to}`)).json.blocked as Array<{ start: string; end: string }>;
const codes = (res: { json: { warnings: Array<{ code: string }> } }) => res.json.warnings.map((x) => x.code);

describe('POST /jobs/{reference}/schedule', () => {
  it('schedules an open job: day, window, who does it; job.scheduled; a reschedule moves it', async () => {
    const contractor = await w.contractor();
    const job = await w.job();
    const res = await schedule(job.reference, { day: '2027-02-10', window: { start: '09:00', end: '12:00' }, contractor });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      status: 'scheduled',
      day: '2027-02-10',
      window: { start: '09:00', end: '12:00' },
      contractor,
      member: null,
      calendar: { block_wanted: false, blocked: false },
      warnings: [],
    });
    expect(res.headers.get('ETag')).toBe('"v2"');
    const moved = await schedule(job.reference, { day: '2027-02-11', member: w.member });
    expect(moved.json).toMatchObject({
      day: '2027-02-11',
      window: { start: '09:00', end: '12:00' },
      contractor: null,
      member: w.member,
    });
    const kept = await schedule(job.reference, { day: '2027-02-12', window: null });
    expect(kept.json).toMatchObject({ member: w.member, window: null });
    expect(await w.eventsOf(job.reference)).toEqual(['job.scheduled', 'job.scheduled', 'job.scheduled']);
    const stale = await schedule(job.reference, { day: '2027-02-13' });
    expect(stale.status).toBe(200);
    const refused = await w.write(`/jobs/${job.reference}/schedule`, { day: '2027-02-14' }, { 'If-Match': '"v2"' });
    expect(refused.status).toBe(412);
  });

  it('refuses a done or cancelled job (409 invalid_transition), a block on a home without a calendar (400)', async () => {
    const done = await w.job();
    await w.write(`/jobs/${done.reference}/complete`, {});
    const res = await schedule(done.reference, { day: '2027-02-10' });
    expect(res.status, res.text).toBe(409);
    expect(res.json.code).toBe('invalid_transition');
    const cancelled = await w.job();
    await w.write(`/jobs/${cancelled.reference}/cancel`, {});
    expect((await schedule(cancelled.reference, { day: '2027-02-10' })).json.code).toBe('invalid_transition');
    const flat = await w.job({ home: 'jvc-2br-townhouse' });
    const noCalendar = await schedule(flat.reference, { day: '2027-02-10', block_calendar: true });
    expect(noCalendar.status).toBe(400);
    expect(noCalendar.json.errors[0]).toMatchObject({ path: 'block_calendar', code: 'not_a_holiday_home' });
    expect((await w.get(`/jobs/${flat.reference}`)).json.status).toBe('open');
    expect((await schedule('J-0000000000', { day: '2027-02-10' })).status).toBe(404);
  });

  it('takes the calendar’s last day, blocking its night, and refuses a day outside 1900 to 2999 (400 at day)', async () => {
    const home = await w.holidayHome();
    const job = await w.job({ home });
    const last = await schedule(job.reference, { day: '2999-12-31', block_calendar: true });
    expect(last.status, last.text).toBe(200);
    expect(last.json.calendar.blocked).toBe(true);
    for (const day of ['0000-01-01', '1899-12-31', '3000-01-01', '2027-02-29']) {
      const refused = await schedule(job.reference, { day, block_calendar: true });
      expect(refused.status, day).toBe(400);
      expect(refused.json.errors.map((e: { path: string }) => e.path)).toEqual(['day']);
    }
    expect((await w.get(`/jobs/${job.reference}`)).json.day).toBe('2999-12-31');
  });
});

describe('the booking calendar', () => {
  it('a block makes availability show the night taken, a quote over it unavailable, and a booking refused', async () => {
    const home = await w.holidayHome();
    const job = await w.job({ home });
    const night = day(20);
    const res = await schedule(job.reference, { day: night, block_calendar: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json.calendar).toEqual({ block_wanted: true, blocked: true });
    expect(res.json.warnings).toEqual([]);
    expect(await blocked(home, day(0), day(60))).toEqual([{ start: night, end: day(21) }]);
    const over = await quote(w.ctx, home, day(18), day(22));
    expect(over.status).toBe(400);
    expect(over.json.code).toBe('unavailable');
    const guest = await postBooking(w.ctx, bookingBody(home, day(19), day(21)));
    expect(guest.status).toBe(400);
    expect(guest.json.code).toBe('unavailable');
    expect((await quote(w.ctx, home, day(21), day(23))).status).toBe(200);
  });

  it('does not block a night a stay holds: warning calendar_taken, nothing blocked beyond the stay', async () => {
    const home = await w.holidayHome();
    const stay = await book(w.ctx, home, day(30), day(33));
    const job = await w.job({ home });
    const res = await schedule(job.reference, { day: day(31), block_calendar: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json.calendar).toEqual({ block_wanted: true, blocked: false });
    expect(codes(res)).toEqual(['calendar_taken']);
    expect((await w.get(`/jobs/${job.reference}`)).json.warnings).toEqual(res.json.warnings);
    const blocks = await w.api.db.selectFrom('calendar_blocks').select('id').where('note', '=', `Job ${job.reference}`).execute();
    expect(blocks).toEqual([]);
    // Confirmed and paid stays hold their nights too; a cancelled one does not.
    await step(w.ctx, stay.reference, 'confirm');
    expect(codes(await schedule(job.reference, { day: day(32), block_calendar: true }))).toEqual(['calendar_taken']);
    await step(w.ctx, stay.reference, 'mark-paid');
    expect(codes(await schedule(job.reference, { day: day(30), block_calendar: true }))).toEqual(['calendar_taken']);
    await step(w.ctx, stay.reference, 'cancel');
    const free = await schedule(job.reference, { day: day(30), block_calendar: true });
    expect(free.json.calendar.blocked).toBe(true);
    expect(codes(free)).toEqual([]);
  });

  it('a lapsed hold does not hold the night', async () => {
    const home = await w.holidayHome();
    await book(w.ctx, home, day(40), day(42));
    const job = await w.job({ home });
    w.api.clock.set(new Date(Date.now() + 25 * 3_600_000));
    try {
      const res = await schedule(job.reference, { day: day(40), block_calendar: true });
      expect(res.json.calendar.blocked).toBe(true);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('a rescheduled job moves its block; a cancelled job releases it', async () => {
    const home = await w.holidayHome();
    const job = await w.job({ home });
    await schedule(job.reference, { day: day(50), block_calendar: true });
    await schedule(job.reference, { day: day(52), block_calendar: true });
    expect(await blocked(home, day(0), day(90))).toEqual([{ start: day(52), end: day(53) }]);
    await schedule(job.reference, { day: day(53) });
    expect(await blocked(home, day(0), day(90))).toEqual([]);
    await schedule(job.reference, { day: day(54), block_calendar: true });
    const cancelled = await w.write(`/jobs/${job.reference}/cancel`, { reason: 'Not needed.' });
    expect(cancelled.json).toMatchObject({ status: 'cancelled', cancel_reason: 'Not needed.', calendar: { blocked: false } });
    expect(await blocked(home, day(0), day(90))).toEqual([]);
    expect((await postBooking(w.ctx, bookingBody(home, day(54), day(55)))).status).toBe(201);
  });
});
