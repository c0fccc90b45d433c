-- Guest registration of holiday-home stays (issue 37; docs/api-reference.md, "Guest registration"). Dubai's Department
-- of Economy and Tourism asks every guest of a holiday home, co-guests included, to be registered with a passport, an
-- Emirates ID or a GCC ID, and the records kept for five years. One row per booking: the list the guest sent on the
-- stay page, sealed with the details keys (compact JWE bound to the booking's id, lib/crypto-jwe.ts), how many guests
-- it names, the consent, and until when it is kept (the check-out day plus five years). Scheduled work erases the
-- list after that day (guests_jwe null, erased_at set); the row stays as the record that a registration was made.
create table guest_registrations (
  booking_id uuid primary key references bookings (id) on delete cascade,
  company_id uuid not null references companies (id) on delete cascade,
  guests_jwe text,
  guest_count integer not null check (guest_count >= 1),
  consent_version text not null,
  consent_at timestamptz not null,
  registered_at timestamptz not null,
  keep_until date not null,
  erased_at timestamptz,
  updated_at timestamptz not null default now(),
  check ((guests_jwe is null) = (erased_at is not null))
);
create index guest_registrations_company on guest_registrations (company_id);
create index guest_registrations_due on guest_registrations (keep_until) where guests_jwe is not null;
