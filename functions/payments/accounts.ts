import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { writeStatement } from '../../lib/write';
import { stamp } from '../../lib/clock';
import { type Keyring, sealSecret } from '../../lib/crypto-jwe';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { amountIn, isKnownCurrency } from '../../lib/money';
import type { PaymentAccountChange, PaymentAccountValue } from '../../schema/payments/accounts';
import type { PaymentAccountRow, PaymentAccountsTable } from '../../schema/platform/payments-db';
import type { Updateable } from 'kysely';

/**
 * A company's payment provider accounts (issue 34), the admin resource: one per currency, its key and signing secret
 * sealed and bound to the account's id (write-only), every change audited with the fields it set (never a secret).
 */

const invalid = (path: string, code: string, message: string) =>
  new ApiError('invalid_request', message, { errors: [{ path, code, message }] });

type CardFee = PaymentAccountValue['card_fee'];

function cardFeeColumns(fee: CardFee, currency: string) {
  if (fee === undefined) return {};
  if (fee === null) return { card_fee_kind: null, card_fee_value: null };
  if (fee.kind === 'percent') {
    if (!/^\d{1,3}(\.\d{1,2})?$/.test(fee.value) || Number(fee.value) > 100) {
      throw invalid('card_fee.value', 'percent', 'A percent from 0 to 100 with at most 2 decimals, such as "2.5".');
    }
    return { card_fee_kind: fee.kind, card_fee_value: fee.value };
  }
  return { card_fee_kind: fee.kind, card_fee_value: amountIn(fee.value, currency, 'card_fee.value') };
}

function checkProvider(provider: string, outlet: string | null | undefined) {
  if (provider === 'ngenius' && !outlet) throw invalid('outlet', 'required', 'N-Genius needs the outlet reference.');
  if (provider === 'stripe' && outlet) throw invalid('outlet', 'not_allowed', 'Stripe takes no outlet.');
}

export async function companyAccounts(db: Db, companyId: string): Promise<PaymentAccountRow[]> {
  return db.selectFrom('payment_accounts').selectAll().where('company_id', '=', companyId).orderBy('currency').execute();
}

export async function findAccount(db: Db, companyId: string, accountId: string): Promise<PaymentAccountRow> {
  const row = await db
    .selectFrom('payment_accounts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw notFound(`The payment account ${accountId}`);
  return row;
}

/** Adds an account; a second one for the currency is 409 `conflict`. One statement: the insert (if the company is), its audit row. */
export async function addAccount(db: Db, keyring: Keyring | undefined, companyId: string, input: PaymentAccountValue) {
  if (!isKnownCurrency(input.currency)) throw invalid('currency', 'unknown_currency', `${input.currency} is not a currency.`);
  checkProvider(input.provider, input.outlet);
  const id = crypto.randomUUID();
  const fee = cardFeeColumns(input.card_fee, input.currency);
  const apiKey = await sealSecret(keyring, input.api_key, id);
  const webhookSecret = await sealSecret(keyring, input.webhook_secret, id);
  try {
    const { rows } = await writeStatement(
      [
        sql`made as (
          insert into payment_accounts
            (id, company_id, provider, currency, api_key_jwe, webhook_secret_jwe, outlet, card_fee_kind, card_fee_value)
          select ${id}::uuid, c.id, ${input.provider}, ${input.currency}, ${apiKey}, ${webhookSecret}, ${input.outlet ?? null},
            ${fee.card_fee_kind ?? null}, ${fee.card_fee_value ?? null}::numeric
          from companies c where c.id = ${companyId}::uuid
          returning *
        )`,
        auditCte('audited', 'made', {
          actor: 'admin',
          action: 'payment_account.created',
          subject: 'id',
          details: { provider: input.provider, currency: input.currency, card_fee: input.card_fee ?? null },
        }),
      ],
      sql`select * from made`,
    ).execute(db);
    const row = rows[0] as PaymentAccountRow | undefined;
    if (!row) throw notFound(`The company ${companyId}`);
    return row;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new ApiError('conflict', `The company has a payment account for ${input.currency} already: change or remove it.`);
    }
    throw error;
  }
}

/**
 * Changes an account's secrets, outlet or card fee (audited: which fields, never their values when secret). Two
 * statements: the account read (its provider and currency judge the change), then the update and its audit row.
 */
export async function changeAccount(
  db: Db,
  keyring: Keyring | undefined,
  companyId: string,
  accountId: string,
  input: PaymentAccountChange,
) {
  const found = await findAccount(db, companyId, accountId);
  if (input.outlet !== undefined) checkProvider(found.provider, input.outlet);
  const set: Updateable<PaymentAccountsTable> = { ...cardFeeColumns(input.card_fee, found.currency) };
  if (input.api_key !== undefined) set.api_key_jwe = await sealSecret(keyring, input.api_key, found.id);
  if (input.webhook_secret !== undefined) set.webhook_secret_jwe = await sealSecret(keyring, input.webhook_secret, found.id);
  if (input.outlet !== undefined) set.outlet = input.outlet;
  if (Object.keys(set).length === 0) return found;
  const assignments = Object.entries(set).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const { rows } = await writeStatement(
    [
      sql`changed as (
        update payment_accounts set ${sql.join(assignments)}, updated_at = ${stamp}
        where id = ${found.id}::uuid and company_id = ${companyId}::uuid
        returning *
      )`,
      auditCte('audited', 'changed', {
        actor: 'admin',
        action: 'payment_account.updated',
        subject: 'id',
        details: { fields: Object.keys(input).sort(), card_fee: input.card_fee ?? null },
      }),
    ],
    sql`select * from changed`,
  ).execute(db);
  const row = rows[0] as PaymentAccountRow | undefined;
  if (!row) throw notFound(`The payment account ${accountId}`);
  return row;
}

/** Removes an account that took no payment (its payments keep it: 409 `conflict`). One statement: the delete, its audit row. */
export async function removeAccount(db: Db, companyId: string, accountId: string): Promise<void> {
  let removed: number;
  try {
    const { rows } = await writeStatement(
      [
        sql`gone as (
          delete from payment_accounts where id = ${accountId}::uuid and company_id = ${companyId}::uuid
          returning id, company_id
        )`,
        auditCte('audited', 'gone', { actor: 'admin', action: 'payment_account.deleted', subject: 'id' }),
      ],
      sql`select count(*)::int as removed from gone`,
    ).execute(db);
    removed = (rows[0] as { removed: number }).removed;
  } catch (error) {
    // payments.account_id is `on delete restrict`: PostgreSQL says 23001 (restrict_violation), not 23503.
    if (['23001', '23503'].includes((error as { code?: string }).code ?? '')) {
      throw new ApiError('conflict', 'The account has payments: it stays (change its secrets instead).');
    }
    throw error;
  }
  if (removed === 0) throw notFound(`The payment account ${accountId}`);
}
