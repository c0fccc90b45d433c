-- The Tourism Dirham of a cancelled booking goes back to the guest (issue 37; docs/api-reference.md, "The Tourism
-- Dirham", "Decided: the fee of a cancelled booking").
--
-- The fee is DET's, per occupied room-night: a cancelled booking occupies none, so a cancellation refunds the fee its
-- payments carried, whatever its policy keeps of the stay, but the fee of nights already recorded in a month's report
-- (lib/bookings.ts refundsOf). The fee's part of each refund is decided once, with the refund, and kept on its row:
-- its owner's `booking_refunded` line and its credit note read it, never recompute it. Null: a refund decided before
-- this migration, a refund of a booking whose quote has no Tourism Dirham, or one that is not a booking's; those keep
-- the proportional rule of migration 0063 (what was booked never changes).
alter table payment_refunds add column tourism_dirham numeric(16, 4)
  check (tourism_dirham >= 0 and tourism_dirham <= amount and (tourism_dirham is null or booking_id is not null));

-- A refund's owner line: what returns base less its credit note's VAT less the fee's part of it (the stored part,
-- else migration 0063's proportional share of the payment's fee).
create or replace function owner_statement_booking_refunded(p_refund text, p_day date) returns void language plpgsql as $$
declare
  line owner_statement_lines;
  refund payment_refunds;
  base numeric;
  returned numeric;
  fee numeric;
  part numeric;
begin
  select * into refund from payment_refunds where id = p_refund;
  select amount - card_fee - rounding into base from payments where id = refund.payment_id;
  returned := least(refund.amount, base);
  for line in
    select * from owner_statement_lines where online_payment_id = refund.payment_id and kind = 'booking_received'
  loop
    if refund.tourism_dirham is not null then
      part := least(refund.tourism_dirham, returned);
    else
      -- The payment's fee: what its line left out of its base but its invoice's VAT (0 for a line written before 0063).
      fee := round((base - booking_document_stay_vat(refund.company_id, 'invoice', refund.payment_id) - line.amount) * 100);
      if fee < 0 then
        fee := 0;
      end if;
      part := coalesce(div(fee * round(returned * 100), nullif(round(base * 100), 0)), 0) / 100;
    end if;
    perform owner_statement_line(line.company_id, line.owner_id, 'booking_refunded', p_day,
      -(returned - booking_document_stay_vat(refund.company_id, 'credit_note', refund.id) - part),
      line.currency, null, line.listing_id, line.home, null, null, line.method, line.online_payment_id, line.booking_id,
      refund.id);
  end loop;
end;
$$;
