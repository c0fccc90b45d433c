import type { z } from '@hono/zod-openapi';
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

/** The team profile of the company named `name` (the catalogue import matches profiles by name). */
export function teamProfileByName(db: Executor, companyId: string, name: string) {
  return db
    .selectFrom('team_profiles')
    .select('id')
    .where('company_id', '=', companyId)
    .where('name', '=', name)
    .executeTakeFirst();
}
