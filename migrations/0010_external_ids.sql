-- One mechanism for the ids clients keep for records: table external_ids, for every kind of record. Activities
-- and tasks kept theirs in their own source + external_id columns; they move into external_ids (kinds
-- 'activity' and 'task') and those columns, with their unique constraints, go. A later group's records
-- (leases, deals, jobs) use the table without a migration of it: any lower-case kind is accepted, and record_id
-- is text, so records with text ids (tasks) fit beside uuid ones.

alter table external_ids drop constraint external_ids_record_type_check;
alter table external_ids add constraint external_ids_record_type_check check (record_type ~ '^[a-z_]{1,40}$');
alter table external_ids alter column record_id type text using record_id::text;

insert into external_ids (company_id, record_type, source, external_id, record_id, created_at)
select company_id, 'activity', source, external_id, id::text, created_at from activities;

insert into external_ids (company_id, record_type, source, external_id, record_id, created_at)
select company_id, 'task', source, external_id, id, created_at from tasks;

-- Dropping the columns drops their checks and the unique (company_id, source, external_id) constraints.
alter table activities drop column source, drop column external_id;
alter table tasks drop column source, drop column external_id;
