-- The hand-off of e-invoices to the company's Accredited Service Provider (issue 35; docs/pint-ae.md, "Hand-off to the
-- Accredited Service Provider"; docs/api-reference.md, "Tax invoices and credit notes", "The provider's hand-off").
--
-- * `companies.einvoice_url`, `companies.einvoice_secret_jwe`: where the company's provider takes its e-invoices, and the
--   secret both sides sign with (Standard Webhooks, `whsec_…`), sealed with the details keys (lib/crypto-jwe.ts) as the
--   Turnstile secret is. Both set or both null (the admin API sets them together).
-- * `tax_documents.einvoice_answer_id`: the `webhook-id` of the provider's last answer recorded, so a repeat of that
--   message changes nothing; `einvoice_answer_at`: its signed timestamp, so an older answer never overwrites a newer.
-- * `tax_documents.einvoice_due_warned_at`: when `invoice.einvoice_due` was recorded for the document (once).

alter table companies add column einvoice_url text;
alter table companies add column einvoice_secret_jwe text;
alter table companies add constraint companies_einvoice_pair check ((einvoice_url is null) = (einvoice_secret_jwe is null));

alter table tax_documents add column einvoice_answer_id text;
alter table tax_documents add column einvoice_answer_at timestamptz;
alter table tax_documents add column einvoice_due_warned_at timestamptz;

-- The warning's work: documents not yet accepted and not yet warned about, by issue date.
create index tax_documents_einvoice_unwarned on tax_documents (issue_date)
  where einvoice_status <> 'accepted' and einvoice_due_warned_at is null;
