import type { Services } from '../env';
import { type OutboundPause, outboundPause } from '../outbound';
import { runJobs, type ScheduledJob } from '../scheduler';
import { dispatchDue } from '../webhooks/local';

/**
 * A loop that never overlaps itself: `kick()` runs it now (or once more right after the current run), and a
 * timer kicks it every `intervalMs`. `stop()` waits for the current run, so a clean shutdown finishes its
 * attempts; a killed process leaves them to be retried when their lease expires.
 */
export class Loop {
  private timer: ReturnType<typeof setInterval> | undefined;
  private first: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly work: () => Promise<boolean>,
    private readonly intervalMs: number,
  ) {}

  /** Runs now, or after `firstRunAfterMs`, then every interval; a kick runs it at any time. */
  start(firstRunAfterMs = 0): this {
    this.timer = setInterval(() => this.kick(), this.intervalMs);
    if (firstRunAfterMs > 0) this.first = setTimeout(() => this.kick(), firstRunAfterMs);
    else this.kick();
    return this;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      // `work` answers true when it had a full batch: there may be more right away.
      const more = await this.work().catch((error: unknown) => {
        console.error('background work failed:', error);
        return false;
      });
      if (more) this.again = true;
    } while (this.again && !this.stopped);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.first);
    await this.running;
  }
}

/** Who delivers webhooks: this process (without QStash) or QStash, as the start-up message says it. */
export function deliveredBy(webhooks: Services['webhooks']): string {
  return webhooks.transport.kind === 'local' ? 'in-process dispatcher' : 'QStash';
}

/**
 * The Node server's background work: the in-process webhook dispatcher (without QStash), woken after each
 * write and every WEBHOOK_DISPATCH_INTERVAL_MS, and the scheduler every SCHEDULER_INTERVAL_SECONDS.
 *
 * While the database's outbound work is paused (a copy: lib/outbound.ts; `paused` says so at start, then each
 * scheduler run), the dispatcher attempts nothing: each of its runs only asks whether the pause is gone, and once it
 * is (the operator's resume), it dispatches and wakes the scheduler for the held jobs. Each change is said in one line.
 */
export function startBackgroundWork(
  services: Services,
  onHandOff: (listener: () => void) => void,
  /** The jobs, or how to import them (the Node server imports them at the scheduler's first run). */
  jobs: readonly ScheduledJob[] | (() => Promise<readonly ScheduledJob[]>),
  options: { firstRunAfterMs?: number; paused?: boolean } = {},
) {
  const { config, webhooks, db } = services;
  const batch = 50;
  let paused = options.paused ?? false;
  // What a dispatcher's or a scheduler's run learnt of the pause; a resume heard by the dispatcher wakes the scheduler.
  const heard = (pause: OutboundPause | undefined, by: 'dispatcher' | 'scheduler') => {
    if (paused === (pause !== undefined)) return;
    paused = pause !== undefined;
    console.log(
      paused
        ? `Outbound work paused (${pause?.reason}): webhooks, calendar imports and rebuild hooks wait.`
        : 'Outbound work resumed: webhooks, calendar imports and rebuild hooks run again.',
    );
    if (!paused) dispatcher?.kick();
    if (!paused && by === 'dispatcher') scheduler.kick();
  };
  const dispatcher =
    webhooks.transport.kind === 'local'
      ? new Loop(async () => {
          if (paused) heard(await outboundPause(db), 'dispatcher');
          if (paused) return false;
          return (await dispatchDue(db, webhooks, { limit: batch })) === batch;
        }, config.WEBHOOK_DISPATCH_INTERVAL_MS)
      : undefined;
  if (dispatcher) onHandOff(() => dispatcher.kick());
  let imported: Promise<readonly ScheduledJob[]> | undefined;
  const scheduler = new Loop(async () => {
    imported ??= typeof jobs === 'function' ? jobs() : Promise.resolve(jobs);
    await runJobs(services, await imported, { onOutbound: (pause) => heard(pause, 'scheduler') });
    return false;
  }, config.SCHEDULER_INTERVAL_SECONDS * 1000);
  dispatcher?.start(options.firstRunAfterMs);
  scheduler.start(options.firstRunAfterMs);
  return {
    dispatcher: deliveredBy(webhooks),
    stop: async () => {
      await Promise.all([dispatcher?.stop(), scheduler.stop()]);
    },
  };
}
