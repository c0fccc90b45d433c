import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { type Executor, isForeignKeyViolation } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import type { TeamProfileInput } from '../../schema/catalogue/admin';

/** Team profiles: the public page's (published ones) and the admin's (every one), in the company's order. */

export function publishedTeam(db: Executor, companyId: string) {
  return db
    .selectFrom('team_profiles')
    .select(['id', 'name', 'role', 'bio', 'photo_url', 'email', 'phone', 'languages'])
    .where('company_id', '=', companyId)
    .where('published', '=', true)
    .orderBy('position')
    .orderBy('created_at')
    .execute();
}

export function allTeamProfiles(db: Executor, companyId: string) {
  return db
    .selectFrom('team_profiles')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('position')
    .orderBy('created_at')
    .execute();
}

const json = (value: unknown) => JSON.stringify(value);

function teamValues(p: z.infer<typeof TeamProfileInput>) {
  return { ...p, role: json(p.role), bio: json(p.bio) };
}

/** A new team profile of the company in one statement (404 for an unknown company, by its foreign key). */
export async function createTeamProfile(db: Executor, companyId: string, p: z.infer<typeof TeamProfileInput>) {
  try {
    return await db
      .insertInto('team_profiles')
      .values({ company_id: companyId, ...teamValues(p) })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound(`The company ${companyId}`);
    throw error;
  }
}

export async function updateTeamProfile(db: Executor, companyId: string, id: string, p: z.infer<typeof TeamProfileInput>) {
  const row = await db
    .updateTable('team_profiles')
    .set(teamValues(p))
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(`The team profile ${id}`);
  return row;
}

export async function deleteTeamProfile(db: Executor, companyId: string, id: string): Promise<void> {
  const gone = await db.deleteFrom('team_profiles').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (gone.numDeletedRows === 0n) throw notFound(`The team profile ${id}`);
}

/**
 * The catalogue import's team (each name once): a profile whose name the company has is changed, another is added; in
 * three statements whatever their number (the names read, the new ones inserted, the known ones updated).
 */
export async function importTeamProfiles(db: Executor, companyId: string, profiles: Array<z.infer<typeof TeamProfileInput>>) {
  if (profiles.length === 0) return;
  const known = await db
    .selectFrom('team_profiles')
    .select(['id', 'name'])
    .where('company_id', '=', companyId)
    .where(
      'name',
      'in',
      profiles.map((p) => p.name),
    )
    .orderBy('created_at')
    .execute();
  const idOf = new Map<string, string>();
  for (const row of known) if (!idOf.has(row.name)) idOf.set(row.name, row.id);
  const added = profiles.filter((p) => !idOf.has(p.name));
  if (added.length > 0) {
    await db
      .insertInto('team_profiles')
      .values(added.map((p) => ({ company_id: companyId, ...teamValues(p) })))
      .execute();
  }
  const changed = profiles.filter((p) => idOf.has(p.name)).map((p) => ({ id: idOf.get(p.name), ...p }));
  if (changed.length > 0) {
    await sql`
      update team_profiles as t set name = v.name, role = v.role, bio = v.bio, photo_url = v.photo_url, email = v.email,
        phone = v.phone, licence_number = v.licence_number, languages = v.languages, published = v.published,
        position = v.position
      from jsonb_to_recordset(${JSON.stringify(changed)}::jsonb) as v(id uuid, name text, role jsonb, bio jsonb,
        photo_url text, email text, phone text, licence_number text, languages text[], published boolean,
        position integer)
      where t.id = v.id and t.company_id = ${companyId}`.execute(db);
  }
}
