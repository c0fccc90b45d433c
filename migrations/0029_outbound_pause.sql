-- Outbound work paused on a copy (issue 32, defect 8). A database restored from a backup (`npm run admin -- restore`),
-- made from one (PGLITE_TEMPLATE) or exported for PostgreSQL (`npm run admin -- export`) still holds the original's
-- webhook subscriptions, due deliveries, calendar imports and rebuild hooks: started as it is, it would send them
-- again beside the original. The copy is marked when it is made, by this one row: while it exists, nothing that
-- reaches outside runs (the webhook dispatcher and QStash hand-offs, the outbox sweep, calendar-import syncs,
-- rebuild hooks: lib/outbound.ts); requests are served as usual. The operator resumes with
-- `npm run admin -- outbound resume` (POST /admin/v1/outbound/resume), which deletes the row.
create table outbound_pause (
  -- One row at most: the whole database is paused or not.
  only_row boolean primary key default true check (only_row),
  paused_at timestamptz not null,
  -- Why, in words an operator reads at start: "restored from backup.tar.gz", "exported for PostgreSQL".
  reason text not null,
  -- How many scheduler runs found outbound work paused and held it, and the last one's time.
  held_runs integer not null default 0,
  last_held_at timestamptz
);
