import { describe, expect, it } from 'vitest';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { useClients, useWorld } from '../support/world';
import { setUpkeep } from './support';

const w = useWorld({ settings: { maintenance_approval_limit: '500' } });
const [writes, reads] = useClients(w, ['write:maintenance'], ['read:maintenance']);

/** POST /jobs/{reference}/{action} of a body as sent (any JSON: the refusals too). */
const act = (reference: string, action: 'schedule' | 'complete' | 'cancel' | 'approval', body: Record<string, unknown> = {}) =>
  writes.POST(`/api/v1/jobs/{reference}/${action}`, { params: { path: { reference } }, body: body as never });
const read = (reference: string) => reads.GET('/api/v1/jobs/{reference}', { params: { path: { reference } } });
const codes = (job: { warnings: Array<{ code: string }> } | undefined) => job?.warnings.map((x) => x.code);

describe('complete and cancel', () => {
  it('completes an open or scheduled job (job.done); sent again it answers the done job; a done job is not cancelled', async () => {
    const job = await w.job();
    // Work done is a day that has come: tomorrow is refused (nothing changes), a past day taken.
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const future = await act(job.reference, 'complete', { done_on: tomorrow });
    expect(future.response.status, JSON.stringify(future.error)).toBe(400);
    expect(future.error?.errors).toEqual([expect.objectContaining({ path: 'done_on', code: 'in_the_future' })]);
    expect((await read(job.reference)).data?.status).toBe('open');
    const res = await act(job.reference, 'complete', { work_done: 'Sealed the joint.', done_on: '2026-02-02' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({ status: 'done', work_done: 'Sealed the joint.', done_on: '2026-02-02' });
    const again = await act(job.reference, 'complete', { work_done: 'Other' });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(res.data);
    const cancel = await act(job.reference, 'cancel');
    expect(cancel.response.status).toBe(409);
    expect(cancel.error?.code).toBe('invalid_transition');
    const scheduled = await w.job();
    await act(scheduled.reference, 'schedule', { day: '2027-02-03' });
    const today = await act(scheduled.reference, 'complete');
    expect(today.data?.status).toBe('done');
    expect(today.data?.done_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await w.eventsOf(job.reference)).toEqual(['job.done']);
  });

  it('cancels an open job (job.cancelled); sent again it answers it; a cancelled job is not completed (409)', async () => {
    const job = await w.job();
    const res = await act(job.reference, 'cancel', { reason: 'Duplicate ticket.' });
    expect(res.data).toMatchObject({ status: 'cancelled', cancel_reason: 'Duplicate ticket.' });
    expect((await act(job.reference, 'cancel')).data).toEqual(res.data);
    const complete = await act(job.reference, 'complete');
    expect(complete.response.status).toBe(409);
    expect(complete.error?.code).toBe('invalid_transition');
    expect(await w.eventsOf(job.reference)).toEqual(['job.cancelled']);
  });
});

describe('the owner’s approval', () => {
  it('warns approval_needed above the company’s limit, until approved or waived; never refuses', async () => {
    const below = await w.job({ estimate: '500' });
    expect(below.warnings).toEqual([]);
    const above = await w.job({ estimate: '500.01' });
    expect(codes(above)).toEqual(['approval_needed']);
    const approved = await act(above.reference, 'approval', { decision: 'approved', note: 'OK by phone' });
    expect(approved.response.status, JSON.stringify(approved.error)).toBe(200);
    expect(approved.data?.approval).toMatchObject({ status: 'approved', note: 'OK by phone', requested_at: null });
    expect(Date.parse(approved.data?.approval.answered_at ?? '')).not.toBeNaN();
    expect(approved.data?.warnings).toEqual([]);
    const waived = await w.job({ estimate: '900' });
    expect(codes((await act(waived.reference, 'approval', { decision: 'waived' })).data)).toEqual([]);
    expect(await w.eventsOf(waived.reference)).toEqual([]);
    const patched = await writes.PATCH('/api/v1/jobs/{reference}', {
      params: { path: { reference: below.reference } },
      body: { estimate: '600' },
    });
    expect(codes(patched.data)).toEqual(['approval_needed']);
  });

  const cli = adminCli(() => w.api);
  it('sets and reads a home’s limit and owner with the admin CLI', cliTimeout, async () => {
    const home = await w.holidayHome();
    const owner = await w.contact();
    expect(await cli('upkeep', 'set', w.company.id, home, '--owner', owner, '--limit', '750')).toEqual({
      home,
      owner,
      approval_limit: '750.00',
    });
    expect(await cli('upkeep', 'set', w.company.id, home, '--limit', '')).toEqual({ home, owner, approval_limit: null });
    expect(await cli('upkeep', 'get', w.company.id, home)).toEqual({ home, owner, approval_limit: null });
  });

  it('uses the home’s own limit before the company’s', async () => {
    const home = await w.holidayHome();
    const set = await setUpkeep(w, home, { approval_limit: '2000' });
    expect(set.response.status, JSON.stringify(set.error)).toBe(200);
    expect((await w.job({ home, estimate: '1500' })).warnings).toEqual([]);
    expect(codes(await w.job({ home, estimate: '2500' }))).toEqual(['approval_needed']);
  });

  it('asks the owner (job.approval_requested), records the answer (job.approval_answered); not_approved when work goes on', async () => {
    const job = await w.job({ estimate: '800' });
    const asked = await act(job.reference, 'approval', { decision: 'requested' });
    expect(asked.data?.approval.status).toBe('requested');
    expect(Date.parse(asked.data?.approval.requested_at ?? '')).not.toBeNaN();
    expect(codes(asked.data)).toEqual(['approval_needed']);
    const scheduled = await act(job.reference, 'schedule', { day: '2027-03-01' });
    expect(scheduled.response.status).toBe(200);
    expect(codes(scheduled.data)).toEqual(['approval_needed', 'not_approved']);
    const declined = await act(job.reference, 'approval', { decision: 'declined' });
    expect(declined.data?.approval.status).toBe('declined');
    expect(codes(declined.data)).toEqual(['not_approved']);
    const done = await act(job.reference, 'complete');
    expect(done.data?.status).toBe('done');
    expect(codes(done.data)).toEqual(['not_approved']);
    // The approval never locks the job, whatever its status.
    const late = await act(job.reference, 'approval', { decision: 'approved' });
    expect(late.response.status).toBe(200);
    expect(codes(late.data)).toEqual([]);
    expect(await w.eventsOf(job.reference)).toEqual([
      'job.approval_requested',
      'job.scheduled',
      'job.approval_answered',
      'job.done',
      'job.approval_answered',
    ]);
  });
});
