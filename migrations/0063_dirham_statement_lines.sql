-- The Tourism Dirham off the owner's statement (issue 37, defect 1; docs/api-reference.md, "The Tourism Dirham" and
-- "Owner statements and the accounting journal").
--
-- A classed home's booking charges the guest the Tourism Dirham (its quote's `tourism_dirham`), a government fee the
-- company collects and pays over to DET: never the owner's. The journal's `TD-` entry moves each month's fee from
-- booking receipts to `tourism_dirham_payable`, so what booking receipts moves to owner payable (the owner's
-- `booking_received` line) must leave the fee in it. A payment's share of the fee is the share its tax invoice gives
-- the booking's `Tourism Dirham` line (lib/payments/booking-invoices.ts): the fee times what was paid toward the
-- booking through this payment over what it is due (its quote's `total` plus `deposit`), rounded down to the fil,
-- less the same of what was paid before it; so a booking paid in full has given its whole fee, whatever the number
-- of payments, and a company that issues no invoice gets the same lines. A refund takes back the owner's line less
-- the fee's share of what it returns (rounded down, as its credit note's line), the fee of the payment being what its
-- line left out. Lines written before this migration keep their amounts (a line never changes) and their refunds
-- mirror them (a payment whose line kept the fee is refunded with it).

-- The Tourism Dirham in the base of the booking's payment `p_payment`: 0 when its booking's quote has none. The fee
-- is in AED (lib/homes.ts refuses a DET class to a company in another currency): two digits, so whole fils are
-- hundredths.
create function booking_payment_dirham(p_payment text) returns numeric language sql stable as $$
  select coalesce((
    select (div(d.fee * least(q.before + q.base, q.whole), q.whole) - div(d.fee * least(q.before, q.whole), q.whole)) / 100
    from payments p
    join bookings b on b.id = p.booking_id
    cross join lateral (select round(((b.quote -> 'tourism_dirham') ->> 'amount')::numeric * 100) as fee) d
    cross join lateral (
      select round(((b.quote ->> 'total')::numeric + (b.quote ->> 'deposit')::numeric) * 100) as whole,
        round((p.amount - p.card_fee - p.rounding) * 100) as base,
        (select round(coalesce(sum(o.amount - o.card_fee - o.rounding), 0) * 100) from payments o
          where o.booking_id = p.booking_id and o.status in ('succeeded', 'refunded') and o.id <> p.id) as before
    ) q
    where p.id = p_payment and b.quote ->> 'currency' = 'AED' and d.fee > 0 and q.whole > 0
  ), 0)
$$;

create or replace function owner_statement_booking_received(p_payment text, p_day date) returns void language plpgsql as $$
declare
  paid record;
begin
  select p.company_id, p.booking_id, p.amount - p.card_fee - p.rounding
      - booking_document_stay_vat(p.company_id, 'invoice', p.id) - booking_payment_dirham(p.id) as base, p.currency,
    coalesce(p.method, 'online') as method, b.listing_id,
    li.slug_en, home_owner(b.listing_id) as owner_id
  into paid
  from payments p join bookings b on b.id = p.booking_id join listings li on li.id = b.listing_id
  where p.id = p_payment;
  if paid.owner_id is not null then
    perform owner_statement_line(paid.company_id, paid.owner_id, 'booking_received', p_day, paid.base, paid.currency,
      null, paid.listing_id, paid.slug_en, null, null, paid.method, p_payment, paid.booking_id, null);
  end if;
end;
$$;

create or replace function owner_statement_booking_refunded(p_refund text, p_day date) returns void language plpgsql as $$
declare
  line owner_statement_lines;
  refund payment_refunds;
  base numeric;
  returned numeric;
  fee numeric;
begin
  select * into refund from payment_refunds where id = p_refund;
  select amount - card_fee - rounding into base from payments where id = refund.payment_id;
  returned := least(refund.amount, base);
  for line in
    select * from owner_statement_lines where online_payment_id = refund.payment_id and kind = 'booking_received'
  loop
    -- The payment's fee: what its line left out of its base but its invoice's VAT (0 for a line written before 0063).
    fee := round((base - booking_document_stay_vat(refund.company_id, 'invoice', refund.payment_id) - line.amount) * 100);
    if fee < 0 then
      fee := 0;
    end if;
    perform owner_statement_line(line.company_id, line.owner_id, 'booking_refunded', p_day,
      -(returned - booking_document_stay_vat(refund.company_id, 'credit_note', refund.id)
        - coalesce(div(fee * round(returned * 100), nullif(round(base * 100), 0)), 0) / 100),
      line.currency, null, line.listing_id, line.home, null, null, line.method, line.online_payment_id, line.booking_id,
      refund.id);
  end loop;
end;
$$;
