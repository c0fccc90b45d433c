import type { Executor } from './db/index';
import type { Caller } from './env';
import type { CausedBy } from './events';

/** The actor written to the audit log and to events' caused_by. */
export function actorOf(caller: Caller): CausedBy {
  switch (caller.kind) {
    case 'admin':
      return 'admin';
    case 'server':
      return `api:${caller.key.prefix}`;
    case 'publishable':
      return 'website';
    case 'anonymous':
      return 'website';
    case 'system':
      return 'system';
  }
}

export async function writeAudit(
  executor: Executor,
  entry: { companyId: string | null; actor: string; action: string; subject?: string; details?: Record<string, unknown> },
): Promise<void> {
  await executor
    .insertInto('audit_log')
    .values({
      company_id: entry.companyId,
      actor: entry.actor,
      action: entry.action,
      subject: entry.subject ?? null,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}
