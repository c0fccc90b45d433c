import { afterEach, describe, expect, it, vi } from 'vitest';
import { Loop } from '../../lib/node/background';

/**
 * The Node server's background loops (webhook dispatcher, scheduler). `npm start` holds their first run back a
 * little, so the first requests on PGlite's one session do not queue behind it; a kick (a write's hand-off) still
 * runs at once. Time is an input: fake timers.
 */
afterEach(() => {
  vi.useRealTimers();
});

describe('Loop', () => {
  it('runs at once when started without a delay, then every interval', async () => {
    vi.useFakeTimers();
    const work = vi.fn(async () => false);
    const loop = new Loop(work, 1_000).start();
    await vi.advanceTimersByTimeAsync(0);
    expect(work).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(work).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('holds the first run back by the delay given, but runs on a kick meanwhile', async () => {
    vi.useFakeTimers();
    const work = vi.fn(async () => false);
    const loop = new Loop(work, 60_000).start(2_000);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(work).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(work).toHaveBeenCalledTimes(1);
    loop.kick();
    await vi.advanceTimersByTimeAsync(0);
    expect(work).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('never runs the held-back first run once stopped', async () => {
    vi.useFakeTimers();
    const work = vi.fn(async () => false);
    const loop = new Loop(work, 60_000).start(2_000);
    await loop.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(work).not.toHaveBeenCalled();
  });
});
