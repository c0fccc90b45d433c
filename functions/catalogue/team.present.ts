import { iso } from '../../lib/dates';
import { localised } from '../../lib/localise';
import type { LocalisedText } from '../../schema/common/columns';

/** A team profile on the public team page: its texts localised. */
export function presentPublicProfile<R extends { role: LocalisedText; bio: LocalisedText }>(row: R) {
  return { ...row, role: localised(row.role), bio: localised(row.bio) };
}

/** A team profile as the admin reads it: every column, the creation time as an instant. */
export function presentProfile(p: { id: string; created_at: Date | string } & Record<string, unknown>) {
  return { ...p, created_at: iso(p.created_at) };
}
