-- Payments online (issue 34; docs/api-reference.md, "Payments"): a company's connected provider accounts, the payments
-- taken through them (a checkout at the provider, its outcome, the provider's fee and payout), and the provider events
-- acted on, so a webhook delivered twice (or thirty times at once) is acted on once.

-- One provider per currency per company. The provider's secret key and the webhook's signing secret are sealed
-- (compact JWE, lib/crypto-jwe.ts sealSecret) with the account's id in the authenticated header: a value copied to
-- another account's row does not open. The provider's address is never here: it is the platform's configuration.
create table payment_accounts (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  provider text not null check (provider in ('stripe', 'ngenius')),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  api_key_jwe text not null,
  webhook_secret_jwe text not null,
  -- N-Genius: the outlet reference orders are made under; Stripe: none.
  outlet text check (length(outlet) between 1 and 100),
  -- The card fee passed on to the payer, when the company says so: an amount in the currency, or a percent.
  card_fee_kind text check (card_fee_kind in ('fixed', 'percent')),
  card_fee_value numeric(16, 4) check (card_fee_value >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint payment_accounts_currency unique (company_id, currency),
  constraint payment_accounts_card_fee check ((card_fee_kind is null) = (card_fee_value is null)),
  constraint payment_accounts_percent check (card_fee_kind is distinct from 'percent' or card_fee_value <= 100),
  constraint payment_accounts_outlet check ((provider = 'ngenius') = (outlet is not null))
);
create trigger payment_accounts_touch before update on payment_accounts for each row execute function touch_updated_at();

-- A payment: one checkout at the provider for an amount the API knows is due (a rent payment now; a booking's deposit
-- or balance later). `amount` is what the payer is asked: the subject's amount, the card fee, and the provider's
-- rounding (Stripe takes three-digit currencies in tens of fils). `fee` and `net` are the provider's, when it says.
create table payments (
  id text primary key check (id ~ '^pay_[A-Za-z0-9]{24}$'),
  company_id uuid not null references companies (id) on delete cascade,
  account_id uuid not null references payment_accounts (id) on delete restrict,
  provider text not null check (provider in ('stripe', 'ngenius')),
  purpose text not null check (purpose in ('rent', 'booking_deposit', 'booking_balance')),
  rent_payment_id uuid references rent_payments (id) on delete restrict,
  status text not null default 'open' check (status in ('open', 'succeeded', 'failed', 'expired', 'refunded')),
  amount numeric(16, 4) not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  card_fee numeric(16, 4) not null default 0 check (card_fee >= 0),
  rounding numeric(16, 4) not null default 0 check (rounding >= 0),
  checkout_id text not null,
  provider_payment_id text,
  url text not null,
  expires_at timestamptz,
  fee numeric(16, 4),
  net numeric(16, 4),
  method text,
  paid_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint payments_rent check ((purpose = 'rent') = (rent_payment_id is not null)),
  constraint payments_checkout unique (provider, checkout_id),
  constraint payments_paid check ((status in ('succeeded', 'refunded')) = (paid_at is not null))
);
create trigger payments_touch before update on payments for each row execute function touch_updated_at();
create index payments_company on payments (company_id, created_at);
create index payments_account on payments (account_id);
-- At most one open checkout per rent payment: a second link request answers the first.
create unique index payments_rent_open on payments (rent_payment_id) where status = 'open';
create index payments_rent on payments (rent_payment_id);

-- The provider events acted on: a webhook whose event is here is answered 200 and changes nothing.
create table payment_provider_events (
  provider text not null check (provider in ('stripe', 'ngenius')),
  event_id text not null check (length(event_id) between 1 and 255),
  company_id uuid not null references companies (id) on delete cascade,
  payment_id text references payments (id) on delete cascade,
  acted_at timestamptz not null default now(),
  constraint payment_provider_events_key primary key (provider, event_id)
);
create index payment_provider_events_company on payment_provider_events (company_id, acted_at);
create index payment_provider_events_payment on payment_provider_events (payment_id);
