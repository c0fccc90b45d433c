-- A booking's VAT on its owner's statement and in the journal (issue 35; docs/api-reference.md, "Tax invoices and
-- credit notes", "Bookings").
--
-- The company supplies a holiday-home stay as principal: a booking's payment gets its tax invoice in its settlement's
-- statement (lib/payments/booking-invoices.ts), a refund of it its credit note in the refund's statement, and the VAT
-- those documents hold is the company's to account for. The journal's `booking_payment` entry books the invoice's VAT
-- to `vat_payable` (the stay's lines' out of booking receipts, the card fee line's out of payment fees), its
-- `online_refund` entry the credit note's back; so the owner's `booking_received` line moves the payment's base less
-- the VAT of the invoice's stay lines (what booking receipts then holds for the owner), and `booking_refunded` the part
-- of the refund that returns base less the VAT of the credit note's stay lines. A payment without an invoice (the
-- company not registered for VAT that day) has none to take: its lines are as before.
--
-- The documents are written in the same statement as the payment's `booked_on` (the refund's), by a CTE; these
-- functions run from the AFTER triggers of migration 0041, at the end of that statement, and see them.

-- The VAT of a booking document's lines but the card fee's (`Card fee`, lib/payments/booking-invoices.ts cardFeeLine):
-- of the invoice of the payment `p_key` (kind `invoice`) or of the credit note of the refund `p_key` (`credit_note`); 0
-- when there is none.
create function booking_document_stay_vat(p_company uuid, p_kind text, p_key text) returns numeric language sql stable as $$
  select coalesce(sum((l ->> 'vat')::numeric), 0)
  from tax_documents d cross join lateral jsonb_array_elements(d.document -> 'lines') as l
  where d.company_id = p_company and d.kind = p_kind and d.source_kind = 'booking_payment' and d.source_key = p_key
    and l ->> 'name' <> 'Card fee'
$$;

create or replace function owner_statement_booking_received(p_payment text, p_day date) returns void language plpgsql as $$
declare
  paid record;
begin
  select p.company_id, p.booking_id, p.amount - p.card_fee - p.rounding
      - booking_document_stay_vat(p.company_id, 'invoice', p.id) as base, p.currency,
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
begin
  select * into refund from payment_refunds where id = p_refund;
  select amount - card_fee - rounding into base from payments where id = refund.payment_id;
  for line in
    select * from owner_statement_lines where online_payment_id = refund.payment_id and kind = 'booking_received'
  loop
    perform owner_statement_line(line.company_id, line.owner_id, 'booking_refunded', p_day,
      -(least(refund.amount, base) - booking_document_stay_vat(refund.company_id, 'credit_note', refund.id)),
      line.currency, null, line.listing_id, line.home, null, null, line.method, line.online_payment_id, line.booking_id,
      refund.id);
  end loop;
end;
$$;
