-- An item of an inbound delivery that cannot be kept (issue 32: a WhatsApp message from a number that cannot be read,
-- a message not in the source's shape) is recorded as failed, not refused with its whole delivery: its id is kept
-- with the failure ({code, path}) and no lead, so the source's retry of the delivery records nothing twice (the item
-- fails again with what it failed with, and its audit row, inbound.item_failed, is written once).
alter table inbound_messages add column failure jsonb;
alter table inbound_messages add constraint inbound_messages_failed_without_lead
  check (failure is null or (lead_id is null and activity_id is null));
