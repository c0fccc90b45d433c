-- Every enquiry in one inbox (issue 26) and visitors never merged into someone else (issue 21, defect 7).
--
-- 1. What an anonymous sender sent is kept on the lead and the booking (`sent_*`), exactly as sent, whatever person
--    it was matched to; a sender who shares a phone with a person of another (or no) email becomes a new person, and
--    the pair is marked as possible duplicates for staff (contact_duplicates).
-- 2. A lead says how the enquirer reached out (`channel`) and where it came from (`source`, with the source's own id
--    and, for a click-to-WhatsApp ad, the ad's `referral`).
-- 3. Inbound channels: a company's receivers for WhatsApp Business (Meta's Cloud API webhooks), Property Finder's
--    lead webhooks and any Standard Webhooks sender, each at a secret path token (only its SHA-256 kept), with the
--    source's secret encrypted; and the source's message ids already recorded (nothing twice, under concurrency).

alter table leads
  add column sent_name text,
  add column sent_email text,
  add column sent_phone text,
  add column sent_listing text,
  add column channel text not null default 'form'
    check (channel in ('form', 'whatsapp', 'call', 'email', 'sms', 'chat', 'other')),
  add column source text not null default 'website' check (source ~ '^[a-z0-9][a-z0-9_.-]{0,39}$'),
  add column source_id text check (length(source_id) between 1 and 200),
  add column referral jsonb;

-- Leads written before: a server key's came from the company's server ("api"), the others from its website.
update leads set source = 'api' where caused_by like 'api:%';

alter table bookings
  add column sent_name text,
  add column sent_email text,
  add column sent_phone text;

-- A pair of people staff should look at: one row per direction, so each person lists the other.
create table contact_duplicates (
  company_id uuid not null references companies (id) on delete cascade,
  contact_id uuid not null references contacts (id) on delete cascade,
  duplicate_id uuid not null references contacts (id) on delete cascade,
  reason text not null check (reason in ('same_phone')),
  created_at timestamptz not null default now(),
  primary key (contact_id, duplicate_id),
  check (contact_id <> duplicate_id)
);
create index contact_duplicates_company_id_fk on contact_duplicates (company_id);
create index contact_duplicates_duplicate_id_fk on contact_duplicates (duplicate_id);

create table inbound_channels (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  kind text not null check (kind in ('whatsapp', 'propertyfinder', 'signed')),
  -- The leads' `source`; one channel per source and company (the source's ids are unique within it).
  source text not null check (source ~ '^[a-z0-9][a-z0-9_.-]{0,39}$' and source not in ('website', 'api')),
  -- SHA-256 of the URL's path token, and its first characters to tell tokens apart.
  token_hash bytea not null unique,
  token_hint text not null,
  -- The source's secret (Meta's app secret, the Property Finder subscription secret, the whsec_ signing secret) and
  -- WhatsApp's verify token, sealed (lib/crypto-jwe.ts) with the channel's id in the authenticated header.
  secret_jwe text not null,
  verify_token_jwe text,
  -- Verification failures counted per window (rated: one audit row per window at most).
  failures integer not null default 0,
  failures_since timestamptz,
  failure_audited_at timestamptz,
  token_rotated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (company_id, source),
  check ((kind = 'whatsapp') = (verify_token_jwe is not null))
);
create trigger inbound_channels_touch before update on inbound_channels
  for each row execute function touch_updated_at();

-- The source's message (or lead) ids already recorded: a retried or concurrent delivery meets the primary key.
create table inbound_messages (
  company_id uuid not null references companies (id) on delete cascade,
  source text not null,
  message_id text not null check (length(message_id) between 1 and 200),
  lead_id uuid references leads (id) on delete set null,
  activity_id uuid references activities (id) on delete set null,
  -- When the source says it happened (a WhatsApp message's timestamp): a conversation's window is measured with it.
  occurred_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (company_id, source, message_id)
);
create index inbound_messages_lead_id_fk on inbound_messages (lead_id, occurred_at);
create index inbound_messages_activity_id_fk on inbound_messages (activity_id);
