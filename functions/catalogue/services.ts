import type { z } from '@hono/zod-openapi';
import { type Executor, isForeignKeyViolation } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import type { ServiceInput } from '../../schema/catalogue/admin';

/** The services the company offers, in its order. */
export function listServices(db: Executor, companyId: string) {
  return db
    .selectFrom('services')
    .select(['key', 'name', 'kind'])
    .where('company_id', '=', companyId)
    .orderBy('position')
    .orderBy('key')
    .execute();
}

/** Services added or changed (by their keys, each once) in one statement, for the catalogue import. */
export async function upsertServices(
  db: Executor,
  companyId: string,
  services: Array<z.infer<typeof ServiceInput> & { position: number }>,
) {
  await db
    .insertInto('services')
    .values(
      services.map((s) => ({
        company_id: companyId,
        key: s.key,
        name: JSON.stringify(s.name),
        kind: s.kind,
        position: s.position,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['company_id', 'key']).doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), kind: eb.ref('excluded.kind') })),
    )
    .execute();
}

/** The service added or changed (by its key) in one statement (404 for an unknown company, by its foreign key). */
export async function upsertService(db: Executor, companyId: string, s: z.infer<typeof ServiceInput>, position = 0) {
  try {
    return await db
      .insertInto('services')
      .values({ company_id: companyId, key: s.key, name: JSON.stringify(s.name), kind: s.kind, position })
      .onConflict((oc) =>
        oc.columns(['company_id', 'key']).doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), kind: eb.ref('excluded.kind') })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound(`The company ${companyId}`);
    throw error;
  }
}

export async function deleteService(db: Executor, companyId: string, key: string): Promise<void> {
  const gone = await db.deleteFrom('services').where('company_id', '=', companyId).where('key', '=', key).executeTakeFirst();
  if (gone.numDeletedRows === 0n) throw notFound(`The service ${key}`);
}
