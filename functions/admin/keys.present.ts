import { iso } from '../../lib/dates';
import type { ApiKeyRow } from '../../schema/platform/db';

/** A key as the admin API shows it (never its secret hashes). */
export function presentKey(key: ApiKeyRow) {
  return {
    prefix: key.prefix,
    kind: key.kind,
    name: key.name,
    scopes: key.scopes,
    origins: key.origins,
    lead_types: key.lead_types,
    created_at: iso(key.created_at),
    revoked_at: iso(key.revoked_at),
    last_used_at: iso(key.last_used_at),
    api_version: key.api_version,
  };
}
