-- Dated API versions (issue 38; docs/api-reference.md, "API versions"). Every key is pinned to the version its answers
-- are served at when a request names none (lib/versions.ts declares the versions). A key made from now on is pinned by
-- lib/keys.ts to the current version; the keys made before versions existed are pinned to the first, 2026-11-29.
alter table api_keys add column api_version text not null default '2026-11-29'
  check (api_version ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$');
