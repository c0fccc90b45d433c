-- Bookings paid online (issue 34, bookings part; docs/api-reference.md, "Booking payments"): a holiday home's payment
-- terms (a deposit payable on the stay page while the dates are held, the balance N days before arrival, whether a
-- paid deposit confirms the booking without staff, and the cancellation policy), the terms a booking was requested
-- under, the payments of a booking, and the refunds made through the provider.

-- The home's payment terms. The defaults keep what every home did before: no deposit, everything due after staff
-- confirm within payment_window_hours, and (nothing being paid online before) a refund in full on any cancellation.
alter table holiday_home_terms
  -- A deposit: a percent of the stay's total, or an amount of the company's currency; neither is no deposit.
  add column booking_deposit_percent integer check (booking_deposit_percent between 0 and 100),
  add column booking_deposit_amount numeric(16, 4) check (booking_deposit_amount >= 0),
  -- The balance is due this many days before arrival; null: within payment_window_hours once it is what is due.
  add column balance_due_days integer check (balance_due_days between 0 and 365),
  -- A deposit paid while held confirms the booking (true) or the booking waits for staff (false).
  add column deposit_confirms boolean not null default false,
  -- A cancellation at least free_cancellation_days before arrival refunds in full; a later one refunds
  -- late_cancellation_refund_percent of the stay's total paid (the refundable deposit always in full).
  add column free_cancellation_days integer not null default 0 check (free_cancellation_days between 0 and 365),
  add column late_cancellation_refund_percent integer not null default 100
    check (late_cancellation_refund_percent between 0 and 100),
  add constraint holiday_home_terms_booking_deposit
    check (booking_deposit_percent is null or booking_deposit_amount is null);

-- The terms a booking was requested under (what the guest was shown), kept with it: a later change of the home's
-- terms does not change a booking's. `booking_deposit` is the deposit's amount (0: none).
alter table bookings
  add column booking_deposit numeric(16, 4) not null default 0 check (booking_deposit >= 0),
  add column balance_due_days integer check (balance_due_days between 0 and 365),
  add column deposit_confirms boolean not null default false,
  add column free_cancellation_days integer not null default 0 check (free_cancellation_days between 0 and 365),
  add column late_cancellation_refund_percent integer not null default 100
    check (late_cancellation_refund_percent between 0 and 100),
  -- When the balance became what is due (its event, booking.balance_due, is sent then).
  add column balance_due_at timestamptz;

-- A guest may cancel from the stay page (`guest`), beside staff and the scheduler's lapses.
alter table bookings drop constraint bookings_cancel_reason_check;
alter table bookings add constraint bookings_cancel_reason_check
  check (cancel_reason in ('staff', 'guest', 'hold_expired', 'payment_overdue'));

-- A booking's payments: its deposit and its balance (or everything at once, a balance).
alter table payments
  add column booking_id uuid references bookings (id) on delete restrict,
  add constraint payments_booking
    check ((purpose in ('booking_deposit', 'booking_balance')) = (booking_id is not null));
create unique index payments_booking_open on payments (booking_id) where status = 'open';
create index payments_booking on payments (booking_id);

-- A refund of a payment through its provider: at most one per payment (the policy's amount, decided once), made with
-- the refund's id as the provider's idempotency key, so a retry after an outage never refunds twice.
create table payment_refunds (
  id text primary key check (id ~ '^rfd_[A-Za-z0-9]{24}$'),
  company_id uuid not null references companies (id) on delete cascade,
  payment_id text not null references payments (id) on delete restrict,
  booking_id uuid references bookings (id) on delete restrict,
  amount numeric(16, 4) not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- Why: `policy` (a cancellation, by the booking's terms), `lapsed` (paid for a booking that no longer holds its dates).
  reason text not null check (reason in ('policy', 'lapsed')),
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  provider_refund_id text,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  refunded_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint payment_refunds_payment unique (payment_id)
);
create trigger payment_refunds_touch before update on payment_refunds for each row execute function touch_updated_at();
create index payment_refunds_pending on payment_refunds (next_attempt_at) where status = 'pending';
create index payment_refunds_booking on payment_refunds (booking_id);
create index payment_refunds_company on payment_refunds (company_id, created_at);
