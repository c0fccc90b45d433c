-- A booking staff mark paid issues its tax invoice (issue 35; docs/api-reference.md, "Tax invoices and credit notes",
-- "Bookings"): what was left to pay of the booking, received outside the API (cash, a transfer, a card machine), is a
-- supply invoiced when staff record it. Its source is the booking itself (`booking_offline`, the booking's reference): one
-- such invoice per booking, as every source has one (`tax_documents_source`).
alter table tax_documents drop constraint tax_documents_source_kind_check;
alter table tax_documents add constraint tax_documents_source_kind_check
  check (source_kind in ('rent_payment', 'booking_payment', 'booking_offline', 'statement_fees', 'job_charge'));
