import { sql } from 'kysely';
import { writeAudit } from '../audit';
import type { CausedBy } from '../events';
import type { PaymentAccountRow } from '../../schema/platform/payments-db';
import { keyringOf } from '../crypto-jwe';
import type { Services } from '../env';
import { openAccount, platformProviderFetch, providerFor } from './index';
import type { PaymentProvider, ProviderFetch } from './provider';
import { ProviderRefused, ProviderUnavailable } from './provider';
import { type Found, foundColumns, foundJoins, mismatch, type SettleContext, writeClosed, writeSuccess } from './settle';

/**
 * Open checkouts asked of their provider (issue 34): N-Genius never retries a webhook, and a Stripe webhook can be
 * lost, so scheduled work reads each checkout still open a few minutes after it was made from the provider (its
 * authoritative state, as a webhook's settlement does) and settles it through the same writes (lib/payments/settle.ts):
 * a paid one `succeeded` with the rent payment's receipt, a failed or lapsed one closed. Idempotent: the writes move a
 * payment only from a status that may move, so a webhook arriving beside the poll, or two polls, make one receipt.
 *
 * Each run claims at most {@link pollBatch} payments (`for update skip locked` on the bare row, `polled_at` set in
 * the same statement), so runs from several places ask each checkout once, and a checkout is asked again only after
 * {@link pollEveryMinutes}. A checkout older than {@link pollForHours} is no longer asked (the provider's page lapsed
 * long before: Stripe's after 24 hours).
 */

/** A checkout is first asked this long after it was made (the payer is usually still on the page before). */
export const pollAfterMinutes = 5;
/** …and again at most this often while it stays open. */
export const pollEveryMinutes = 5;
/** …for this long after it was made. */
export const pollForHours = 48;
const pollBatch = 50;

/** The provider event id a poll's settlement records (one per payment and outcome). */
const pollEventId = (payment: string, status: string) => `poll:${payment}:${status}`;

type Claimed = Found & { company_id: string; account_id: string; time_zone: string; account: PaymentAccountRow };

/** `failed`: a payment whose account could not be opened or whose write failed (logged; asked again later). */
export type PollReport = { asked: number; settled: number; unavailable: number; refused: number; failed: number };

/** One statement: the batch claimed (its `polled_at` set) and read with what a settlement writes. */
async function claim(services: Services, now: Date, companyIds: readonly string[] | undefined): Promise<Claimed[]> {
  const ms = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
  const { rows } = await sql<Claimed>`
    with candidates as (
      select p.id from payments p
      where p.status = 'open' and p.created_at <= ${ms(pollAfterMinutes)}::timestamptz
        and p.created_at > ${ms(pollForHours * 60)}::timestamptz
        and (p.polled_at is null or p.polled_at <= ${ms(pollEveryMinutes)}::timestamptz)
        ${companyIds ? sql`and p.company_id in (${sql.join(companyIds.map((id) => sql`${id}::uuid`))})` : sql``}
      order by p.created_at, p.id
      limit ${pollBatch}
      for update skip locked
    ),
    claimed as (
      update payments p set polled_at = ${now.toISOString()}::timestamptz
      from candidates where p.id = candidates.id
      returning p.*
    )
    select ${foundColumns}, p.company_id, p.account_id, c.time_zone, to_jsonb(a) as account, false as acted
    from claimed p
    join companies c on c.id = p.company_id
    join payment_accounts a on a.id = p.account_id
    ${foundJoins}
    order by p.account_id, p.id`.execute(services.db);
  return rows;
}

/**
 * Asks the provider about every open checkout due a poll and settles those it says are over; only `companyIds`'
 * checkouts when given (a scheduler serving some companies; the tests, whose files share one PostgreSQL database and
 * each talk to their own provider stand-in).
 */
export async function pollOpenCheckouts(
  services: Services,
  send: ProviderFetch = platformProviderFetch,
  companyIds?: readonly string[],
): Promise<PollReport> {
  const now = services.now();
  const report: PollReport = { asked: 0, settled: 0, unavailable: 0, refused: 0, failed: 0 };
  const keyring = keyringOf(services.config);
  const providers = new Map<string, PaymentProvider>();
  for (;;) {
    const batch = await claim(services, now, companyIds);
    for (const payment of batch) {
      try {
        await pollOne(payment);
      } catch (error) {
        // One payment's trouble (an account whose secrets do not open, a failed write) never stops the others.
        console.error(`payment poll of ${payment.id} failed:`, error);
        report.failed += 1;
      }
    }
    if (batch.length < pollBatch) break;
  }
  return report;

  async function pollOne(payment: Claimed): Promise<void> {
    {
      let provider = providers.get(payment.account_id);
      if (!provider) {
        provider = providerFor(await openAccount(payment.account, keyring, services.config), send);
        providers.set(payment.account_id, provider);
      }
      report.asked += 1;
      const causedBy: CausedBy = `inbound:${payment.account.provider}`;
      let state: Awaited<ReturnType<PaymentProvider['readCheckout']>>;
      try {
        state = await provider.readCheckout(payment.checkout_id);
      } catch (error) {
        // Asked again at a later run (polled_at is set).
        if (error instanceof ProviderUnavailable) report.unavailable += 1;
        else if (error instanceof ProviderRefused) report.refused += 1;
        else throw error;
        return;
      }
      const ctx: SettleContext = {
        db: services.db,
        config: services.config,
        keyring,
        send,
        now,
        companyId: payment.company_id,
        timeZone: payment.time_zone,
      };
      const wrong = mismatch(payment, state);
      if (wrong !== null) {
        await writeAudit(services.db, {
          companyId: payment.company_id,
          actor: causedBy,
          action: 'payment.refused',
          subject: payment.id,
          details: { reason: `${wrong}_mismatch`, event_id: null, checkout_id: payment.checkout_id, polled: true },
        });
        return;
      }
      if (state.status === 'open') return;
      const eventId = pollEventId(payment.id, state.status);
      const moved =
        state.status === 'succeeded'
          ? (await writeSuccess(ctx, payment, state, payment.account.provider, eventId, causedBy)).moved
          : await writeClosed(ctx, payment, state.status, payment.account.provider, eventId, causedBy);
      if (moved) report.settled += 1;
    }
  }
}
