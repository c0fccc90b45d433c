import { describe, expect, it } from 'vitest';
import { bookingsThrough, step as bookingStep, day, plainTerms, useBookingWorld } from '../stay/support';
import { useClients } from '../support/world';

// A development workspace (its booking form takes the spam check's test token), with the booking form's client.
const { w, forms } = useBookingWorld();
const [writes, reads] = useClients(w, ['write:maintenance'], ['read:maintenance']);

/** POST /jobs/{reference}/schedule of a body as sent (any JSON: the refusals too). */
const schedule = (reference: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  writes.POST('/api/v1/jobs/{reference}/schedule', { params: { path: { reference } }, body: body as never, headers });
const act = (reference: string, action: 'complete' | 'cancel', body: Record<string, unknown> = {}) =>
  writes.POST(`/api/v1/jobs/{reference}/${action}`, { params: { path: { reference } }, body: body as never });
const read = (reference: string) => reads.GET('/api/v1/jobs/{reference}', { params: { path: { reference } } });
const codes = (job: { warnings: Array<{ code: string }> } | undefined) => job?.warnings.map((x) => x.code);
/** A new holiday home whose terms let any stay of these tests be booked (its calendar is the test's own). */
const holidayHome = () => w.holidayHome(plainTerms);
const blocked = async (home: string, from: string, to: string) =>
  (await w.anonymous.GET('/api/v1/listings/{slug}/availability', { params: { path: { slug: home }, query: { from, to } } })).data
    ?.blocked;
const quote = (home: string, checkIn: string, checkOut: string) =>
  w.anonymous.GET('/api/v1/listings/{slug}/quote', {
    params: { path: { slug: home }, query: { check_in: checkIn, check_out: checkOut, guests: 2 } },
  });
/** A guest's booking request from the company's website. */
const bookingRequest = (home: string, checkIn: string, checkOut: string) => bookingsThrough(forms).send(home, checkIn, checkOut);
const book = (home: string, checkIn: string, checkOut: string) => bookingsThrough(forms).book(home, checkIn, checkOut);
const step = (reference: string, action: 'confirm' | 'mark-paid' | 'cancel') => bookingStep(w, reference, action);

describe('POST /jobs/{reference}/schedule', () => {
  it('schedules an open job: day, window, who does it; job.scheduled; a reschedule moves it', async () => {
    const contractor = await w.contractor();
    const job = await w.job();
    const res = await schedule(job.reference, { day: '2027-02-10', window: { start: '09:00', end: '12:00' }, contractor });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({
      status: 'scheduled',
      day: '2027-02-10',
      window: { start: '09:00', end: '12:00' },
      contractor,
      member: null,
      calendar: { block_wanted: false, blocked: false },
      warnings: [],
    });
    expect(res.response.headers.get('ETag')).toBe('"v2"');
    const moved = await schedule(job.reference, { day: '2027-02-11', member: w.members.lina });
    expect(moved.data).toMatchObject({
      day: '2027-02-11',
      window: { start: '09:00', end: '12:00' },
      contractor: null,
      member: w.members.lina,
    });
    const kept = await schedule(job.reference, { day: '2027-02-12', window: null });
    expect(kept.data).toMatchObject({ member: w.members.lina, window: null });
    expect(await w.eventsOf(job.reference)).toEqual(['job.scheduled', 'job.scheduled', 'job.scheduled']);
    const stale = await schedule(job.reference, { day: '2027-02-13' });
    expect(stale.response.status).toBe(200);
    const refused = await schedule(job.reference, { day: '2027-02-14' }, { 'If-Match': '"v2"' });
    expect(refused.response.status).toBe(412);
  });

  it('refuses a done or cancelled job (409 invalid_transition), a block on a home without a calendar (400)', async () => {
    const done = await w.job();
    await act(done.reference, 'complete');
    const res = await schedule(done.reference, { day: '2027-02-10' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(409);
    expect(res.error?.code).toBe('invalid_transition');
    const cancelled = await w.job();
    await act(cancelled.reference, 'cancel');
    expect((await schedule(cancelled.reference, { day: '2027-02-10' })).error?.code).toBe('invalid_transition');
    const flat = await w.job({ home: 'jvc-2br-townhouse' });
    const noCalendar = await schedule(flat.reference, { day: '2027-02-10', block_calendar: true });
    expect(noCalendar.response.status).toBe(400);
    expect(noCalendar.error?.errors?.[0]).toMatchObject({ path: 'block_calendar', code: 'not_a_holiday_home' });
    expect((await read(flat.reference)).data?.status).toBe('open');
    expect((await schedule('J-0000000000', { day: '2027-02-10' })).response.status).toBe(404);
  });

  it('takes the calendar’s last day, blocking its night, and refuses a day outside 1900 to 2999 (400 at day)', async () => {
    const home = await holidayHome();
    const job = await w.job({ home });
    const last = await schedule(job.reference, { day: '2999-12-31', block_calendar: true });
    expect(last.response.status, JSON.stringify(last.error)).toBe(200);
    expect(last.data?.calendar.blocked).toBe(true);
    for (const day of ['0000-01-01', '1899-12-31', '3000-01-01', '2027-02-29']) {
      const refused = await schedule(job.reference, { day, block_calendar: true });
      expect(refused.response.status, day).toBe(400);
      expect(refused.error?.errors?.map((e) => e.path)).toEqual(['day']);
    }
    expect((await read(job.reference)).data?.day).toBe('2999-12-31');
  });
});

describe('the booking calendar', () => {
  it('a block makes availability show the night taken, a quote over it unavailable, and a booking refused', async () => {
    const home = await holidayHome();
    const job = await w.job({ home });
    const night = day(20);
    const res = await schedule(job.reference, { day: night, block_calendar: true });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.calendar).toEqual({ block_wanted: true, blocked: true });
    expect(res.data?.warnings).toEqual([]);
    expect(await blocked(home, day(0), day(60))).toEqual([{ start: night, end: day(21) }]);
    const over = await quote(home, day(18), day(22));
    expect(over.response.status).toBe(400);
    expect(over.error?.code).toBe('unavailable');
    const guest = await bookingRequest(home, day(19), day(21));
    expect(guest.response.status).toBe(400);
    expect(guest.error?.code).toBe('unavailable');
    expect((await quote(home, day(21), day(23))).response.status).toBe(200);
  });

  it('does not block a night a stay holds: warning calendar_taken, nothing blocked beyond the stay', async () => {
    const home = await holidayHome();
    const stay = await book(home, day(30), day(33));
    const job = await w.job({ home });
    const res = await schedule(job.reference, { day: day(31), block_calendar: true });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.calendar).toEqual({ block_wanted: true, blocked: false });
    expect(codes(res.data)).toEqual(['calendar_taken']);
    expect((await read(job.reference)).data?.warnings).toEqual(res.data?.warnings);
    const blocks = await w.api.db.selectFrom('calendar_blocks').select('id').where('note', '=', `Job ${job.reference}`).execute();
    expect(blocks).toEqual([]);
    // Confirmed and paid stays hold their nights too; a cancelled one does not.
    await step(stay.reference, 'confirm');
    expect(codes((await schedule(job.reference, { day: day(32), block_calendar: true })).data)).toEqual(['calendar_taken']);
    await step(stay.reference, 'mark-paid');
    expect(codes((await schedule(job.reference, { day: day(30), block_calendar: true })).data)).toEqual(['calendar_taken']);
    await step(stay.reference, 'cancel');
    const free = await schedule(job.reference, { day: day(30), block_calendar: true });
    expect(free.data?.calendar.blocked).toBe(true);
    expect(codes(free.data)).toEqual([]);
  });

  it('a lapsed hold does not hold the night', async () => {
    const home = await holidayHome();
    await book(home, day(40), day(42));
    const job = await w.job({ home });
    w.api.clock.set(new Date(Date.now() + 25 * 3_600_000));
    try {
      const res = await schedule(job.reference, { day: day(40), block_calendar: true });
      expect(res.data?.calendar.blocked).toBe(true);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('a rescheduled job moves its block; a cancelled job releases it', async () => {
    const home = await holidayHome();
    const job = await w.job({ home });
    await schedule(job.reference, { day: day(50), block_calendar: true });
    await schedule(job.reference, { day: day(52), block_calendar: true });
    expect(await blocked(home, day(0), day(90))).toEqual([{ start: day(52), end: day(53) }]);
    await schedule(job.reference, { day: day(53) });
    expect(await blocked(home, day(0), day(90))).toEqual([]);
    await schedule(job.reference, { day: day(54), block_calendar: true });
    const cancelled = await act(job.reference, 'cancel', { reason: 'Not needed.' });
    expect(cancelled.data).toMatchObject({ status: 'cancelled', cancel_reason: 'Not needed.', calendar: { blocked: false } });
    expect(await blocked(home, day(0), day(90))).toEqual([]);
    expect((await bookingRequest(home, day(54), day(55))).response.status).toBe(201);
  });
});
