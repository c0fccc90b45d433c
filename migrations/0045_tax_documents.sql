-- Tax invoices and credit notes (issue 35; docs/api-reference.md, "Tax invoices and credit notes"; docs/pint-ae.md).
--
-- * `tax_document_series`: the last number issued per company and series (`INV` invoices, `CRN` credit notes). A
--   document takes its number by an upsert of its series' row in the statement that issues it: the row stays locked
--   until that statement's transaction ends, so documents of one series are numbered one after the other, and a
--   statement that fails gives its number back with everything else (no gap, no number twice).
-- * `tax_documents`: each issued invoice or credit note, as it was issued: the document (lib/einvoice/document.ts's
--   `TaxDocument`, as JSON) and its PINT AE XML, both written once. What it was issued for (`source_kind`,
--   `source_key`) is unique per company and kind: nothing is invoiced twice, nor credited twice. A credit note names
--   the invoice it credits. The database refuses any change to an issued document but its e-invoice hand-off columns,
--   and any deletion.
-- * `contacts.trn`: a person's (or a business's) UAE Tax Registration Number, when registered for VAT: a buyer with one
--   gets a full tax invoice naming it; a landlord's names it as the principal the company bills for. Erased with the
--   person's other details.
-- * The hand-off to the company's Accredited Service Provider (`einvoice_*`): `pending` until the provider answers,
--   then `accepted` or `rejected` (its reasons kept); tried like webhooks (attempts, next attempt).

create table tax_document_series (
  company_id uuid not null references companies (id),
  series text not null check (series in ('INV', 'CRN')),
  last_number bigint not null check (last_number > 0),
  primary key (company_id, series)
);

create table tax_documents (
  id uuid primary key,
  company_id uuid not null references companies (id),
  kind text not null check (kind in ('invoice', 'credit_note')),
  series text not null,
  sequence bigint not null check (sequence > 0),
  number text not null,
  type_code text not null check (type_code in ('380', '480', '381', '81', '389', '261')),
  simplified boolean not null,
  issue_date date not null,
  currency text not null,
  net numeric(16, 4) not null,
  vat numeric(16, 4) not null check (vat >= 0),
  gross numeric(16, 4) not null check (gross = net + vat),
  source_kind text not null check (source_kind in ('rent_payment', 'booking_payment', 'statement_fees', 'job_charge')),
  source_key text not null,
  -- The records it was issued for, for the lists' filters (each may be null: an owner's month has no lease).
  lease_id uuid,
  booking_id uuid,
  owner_id uuid,
  credits_id uuid references tax_documents (id),
  document jsonb not null,
  xml text not null,
  einvoice_status text not null default 'pending' check (einvoice_status in ('pending', 'accepted', 'rejected')),
  einvoice_reasons jsonb,
  einvoice_attempts integer not null default 0,
  einvoice_next_attempt_at timestamptz,
  einvoice_last_error text,
  einvoice_answered_at timestamptz,
  created_at timestamptz not null default now(),
  -- The order of issue across the series (the lists' order): drawn when the row is written, after its series' row was
  -- locked, so one series' documents are in number order (now() is the transaction's start, which is not).
  issued_order bigint generated always as identity,
  constraint tax_documents_series_kind check ((kind = 'invoice') = (series = 'INV')),
  constraint tax_documents_credit check ((kind = 'credit_note') = (credits_id is not null)),
  constraint tax_documents_number unique (company_id, number),
  constraint tax_documents_sequence unique (company_id, series, sequence),
  constraint tax_documents_source unique (company_id, kind, source_kind, source_key),
  foreign key (company_id, series) references tax_document_series (company_id, series)
);

create index tax_documents_list on tax_documents (company_id, issued_order desc);
create index tax_documents_credits on tax_documents (credits_id);
create index tax_documents_lease on tax_documents (lease_id);
create index tax_documents_booking on tax_documents (booking_id);
create index tax_documents_owner on tax_documents (owner_id);
create index tax_documents_einvoice_due on tax_documents (einvoice_next_attempt_at) where einvoice_status = 'pending';

-- Issued once: the document never changes but its hand-off to the provider; never deleted.
create function tax_document_fixed() returns trigger language plpgsql as $$
begin
  if TG_OP = 'DELETE' then
    raise exception 'tax document % was issued: it is never deleted', OLD.number
      using errcode = 'check_violation', constraint = 'tax_documents_fixed';
  end if;
  if (NEW.id, NEW.company_id, NEW.kind, NEW.series, NEW.sequence, NEW.number, NEW.type_code, NEW.simplified,
      NEW.issue_date, NEW.currency, NEW.net, NEW.vat, NEW.gross, NEW.source_kind, NEW.source_key, NEW.lease_id,
      NEW.booking_id, NEW.owner_id, NEW.credits_id, NEW.document, NEW.xml, NEW.created_at, NEW.issued_order)
      is distinct from (OLD.id, OLD.company_id, OLD.kind, OLD.series, OLD.sequence, OLD.number, OLD.type_code,
      OLD.simplified, OLD.issue_date, OLD.currency, OLD.net, OLD.vat, OLD.gross, OLD.source_kind, OLD.source_key,
      OLD.lease_id, OLD.booking_id, OLD.owner_id, OLD.credits_id, OLD.document, OLD.xml, OLD.created_at,
      OLD.issued_order) then
    raise exception 'tax document % was issued: it never changes', OLD.number
      using errcode = 'check_violation', constraint = 'tax_documents_fixed';
  end if;
  return NEW;
end;
$$;
create trigger tax_documents_fixed before update or delete on tax_documents
  for each row execute function tax_document_fixed();

alter table contacts add column trn text check (trn ~ '^100[0-9]{10}03$');
