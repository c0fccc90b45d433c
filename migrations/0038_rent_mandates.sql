-- Direct-debit mandates for rent (issue 34, mandates part; docs/api-reference.md, "Rent mandates").
--
-- A mandate is the renter's standing authority to the company to collect rent from a bank account by direct debit
-- (in the UAE: a Direct Debit Authority under the Central Bank's UAE Direct Debit System, UAEDDS). It belongs to one
-- lease; each collection is one of the lease's rent payments naming it (`rent_payments.mandate_id`), received or
-- bounced as a cheque is.
--
-- The IBAN is personal data: it is kept only sealed (compact JWE, lib/crypto-jwe.ts sealSecret, the mandate's id bound
-- in its authenticated header) beside its last four characters, the only part ever shown. Erasure of the renter
-- empties the account holder and the sealed IBAN (functions/crm/erasure.ts); nothing else of a mandate changes after
-- it is recorded but its status (a changed mandate is a new one at the bank, so it is a new one here).
create table rent_mandates (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  lease_id uuid not null references leases (id) on delete cascade,
  -- The mandate's reference at the bank (UAEDDS: the DDA reference): one mandate per reference in a company.
  mandate_reference text not null check (length(mandate_reference) between 1 and 50),
  bank_name text not null check (length(bank_name) between 1 and 100),
  bank_code text check (length(bank_code) between 1 and 20),
  -- The account's title (who the bank debits): null once erased.
  account_holder text check (length(account_holder) between 1 and 200),
  iban_jwe text,
  iban_last4 text not null check (iban_last4 ~ '^[0-9A-Z]{4}$'),
  -- The most one collection may take, in the company's currency.
  max_amount numeric(16, 4) not null check (max_amount > 0),
  starts_on date not null check (starts_on between '1900-01-01' and '2999-12-31'),
  ends_on date not null check (ends_on between '1900-01-01' and '2999-12-31'),
  status text not null default 'pending' check (status in ('pending', 'active', 'cancelled', 'rejected', 'expired')),
  activated_at timestamptz,
  cancelled_at timestamptz,
  rejected_at timestamptz,
  expired_at timestamptz,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  constraint rent_mandates_reference unique (company_id, mandate_reference),
  -- The key a rent payment names its mandate by, with its own lease: a payment never names another lease's mandate.
  constraint rent_mandates_of_lease unique (id, lease_id),
  constraint rent_mandates_period check (ends_on >= starts_on),
  constraint rent_mandates_erased check ((account_holder is null) = (iban_jwe is null)),
  check ((status = 'cancelled') = (cancelled_at is not null)),
  check ((status = 'rejected') = (rejected_at is not null)),
  check ((status = 'expired') = (expired_at is not null)),
  check ((status in ('active', 'expired')) <= (activated_at is not null)),
  check (status not in ('pending', 'rejected') or activated_at is null)
);
create index rent_mandates_sync on rent_mandates (company_id, updated_at, id);
create index rent_mandates_lease on rent_mandates (lease_id, created_at);

-- Statuses move forward only (functions/leases/mandates.ts mandateMachine, the same table); the terms never change;
-- the account holder and the sealed IBAN only become null (erasure), together.
create function rent_mandate_fixed() returns trigger language plpgsql as $$
begin
  if NEW.status is distinct from OLD.status and not (
    (OLD.status = 'pending' and NEW.status in ('active', 'rejected', 'cancelled'))
    or (OLD.status = 'active' and NEW.status in ('cancelled', 'expired'))
  ) then
    raise exception 'rent mandate % cannot go from % to %', OLD.id, OLD.status, NEW.status
      using errcode = 'check_violation', constraint = 'rent_mandates_status_forward';
  end if;
  if (NEW.company_id, NEW.lease_id, NEW.mandate_reference, NEW.bank_name, NEW.bank_code, NEW.iban_last4, NEW.max_amount,
      NEW.starts_on, NEW.ends_on, NEW.created_at)
      is distinct from (OLD.company_id, OLD.lease_id, OLD.mandate_reference, OLD.bank_name, OLD.bank_code, OLD.iban_last4,
      OLD.max_amount, OLD.starts_on, OLD.ends_on, OLD.created_at)
    or (NEW.account_holder is distinct from OLD.account_holder and NEW.account_holder is not null)
    or (NEW.iban_jwe is distinct from OLD.iban_jwe and NEW.iban_jwe is not null) then
    raise exception 'rent mandate % keeps its terms: a changed mandate is a new one', OLD.id
      using errcode = 'check_violation', constraint = 'rent_mandates_terms_fixed';
  end if;
  return NEW;
end;
$$;
create trigger rent_mandates_a_fixed before update on rent_mandates for each row execute function rent_mandate_fixed();
create trigger rent_mandates_touch before update on rent_mandates for each row execute function touch_updated_at();
create trigger rent_mandates_version before update on rent_mandates for each row execute function bump_version();

-- A rent payment collected by direct debit names its lease's mandate; a payment is a cheque or a collection, not both.
alter table rent_payments
  add column mandate_id uuid,
  add constraint rent_payments_mandate foreign key (mandate_id, lease_id) references rent_mandates (id, lease_id),
  add constraint rent_payments_one_method check (mandate_id is null or cheque_number is null);
create index rent_payments_mandate on rent_payments (mandate_id, lease_id);

-- A settled payment keeps the mandate it was collected under (a bounced one never changes at all: 0019).
create function rent_payment_mandate_fixed() returns trigger language plpgsql as $$
begin
  if OLD.status <> 'due' and NEW.mandate_id is distinct from OLD.mandate_id then
    raise exception 'rent payment % was settled under its mandate and keeps it', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_mandate_fixed';
  end if;
  return NEW;
end;
$$;
create trigger rent_payments_b_mandate before update on rent_payments for each row execute function rent_payment_mandate_fixed();
