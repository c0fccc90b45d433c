import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { migrateToLatest } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPostgres } from '../../lib/db/postgres';
import { onServer, SERVER } from './support';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database of the local PostgreSQL migrated once per run, which each file's database is created from. */
    workerdTemplate: string;
  }
}

/**
 * Migrates one database per run, and each test file's database is a copy of it (`create database … template`, a
 * fraction of a second where migrating one takes about two: test/workerd/support.ts `startWorkerd`). Dropped at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = `pa_workerd_template_${randomBytes(4).toString('hex')}`;
  await onServer((client) => client.query(`create database ${template}`));
  const drop = () => onServer((client) => client.query(`drop database if exists ${template} with (force)`));
  try {
    const handle = openPostgres(`${SERVER}/${template}`, { max: 1 });
    try {
      await migrateToLatest(handle, await readSqlMigrations());
    } finally {
      await handle.close();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  project.provide('workerdTemplate', template);
  return async () => {
    await drop();
  };
}
