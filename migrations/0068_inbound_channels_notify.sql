-- Announces every change to a company's inbound channels on `company_changed` (migration 0016's function: the
-- payload is the company's id), so a Node process can keep a channel found by its token in memory
-- (lib/company-cache.ts, functions/forms/inbound.ts channelByToken) and drop it when the channel is added, removed,
-- its token rotated or its secrets changed. Counting a verification failure (`failures`, `failures_since`,
-- `failure_audited_at`, and the `updated_at` the touch trigger sets with them) is not a change anyone has to see:
-- it is not announced, and the counts are always read from the row itself.

create trigger inbound_channels_notify_changed after insert or delete on inbound_channels
  for each row execute function notify_company_changed();
create trigger inbound_channels_notify_updated after update on inbound_channels
  for each row when (
    (to_jsonb(OLD) - array['failures', 'failures_since', 'failure_audited_at', 'updated_at'])
      is distinct from (to_jsonb(NEW) - array['failures', 'failures_since', 'failure_audited_at', 'updated_at'])
  )
  execute function notify_company_changed();
