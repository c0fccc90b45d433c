-- Rent paid online after it stopped being due, refunded (issue 34; docs/api-reference.md, "Payments").
--
-- A rent payment's online payment that succeeded when the rent payment was no longer `due` (staff recorded it
-- received first, or it was cancelled) made no receipt: the journal books it to refunds due (`online_payment_unapplied`,
-- migration 0039). Its settlement now decides, in the same statement, a refund of the whole of it through the provider
-- (`payment_refunds`, reason `unapplied`, no booking), sent as a booking's refund is (the refund's id as the provider's
-- idempotency key, retried by the scheduler's `payment_refunds` job). One refund per payment stays the rule (the unique
-- key `payment_refunds_payment`).
alter table payment_refunds drop constraint payment_refunds_reason_check;
alter table payment_refunds add constraint payment_refunds_reason_check
  check (reason in ('policy', 'lapsed', 'unapplied'));

-- The payments settled unapplied before this migration (the first slice's, days old), without a refund: exactly those
-- the journal books to refunds due (no receipt line names them). Each is decided now, pending and due at once: the
-- scheduler's `payment_refunds` job sends it.
insert into payment_refunds (id, company_id, payment_id, amount, currency, reason)
select 'rfd_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), p.company_id, p.id, p.amount, p.currency, 'unapplied'
from payments p
where p.purpose = 'rent' and p.status = 'succeeded'
  and not exists (select from payment_refunds r where r.payment_id = p.id)
  and not exists (select from owner_statement_lines l where l.online_payment_id = p.id and l.kind = 'rent_received');
