import { iso } from '../../lib/dates';
import { amountShown, fixedTo } from '../../lib/money';
import type { PaymentAccountRow } from '../../schema/platform/payments-db';

/** An account as the admin API shows it: never a secret. A percent card fee keeps its own two digits. */
export function presentAccount(row: PaymentAccountRow) {
  const fee =
    row.card_fee_kind === null || row.card_fee_value === null
      ? null
      : {
          kind: row.card_fee_kind,
          value: row.card_fee_kind === 'percent' ? fixedTo(row.card_fee_value, 2) : amountShown(row.card_fee_value, row.currency),
        };
  return {
    account_id: row.id,
    provider: row.provider,
    currency: row.currency,
    outlet: row.outlet,
    card_fee: fee,
    webhook_path: `/api/v1/payments/webhooks/${row.id}`,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
