import { beforeAll, describe, expect, it } from 'vitest';
import { actorOf, writeAudit } from '../../lib/audit';
import { type EventInput, recordEvent } from '../../lib/events';
import { eventTypes } from '../../schema/platform/events';
import type { ApiKeyRow } from '../../schema/platform/db';
import { createCompany, useApi } from '../support/world';

let company: { id: string; host: string };

const api = useApi();
beforeAll(async () => {
  company = await createCompany(api);
});

const eventsOf = (type: string) =>
  api.db.selectFrom('events').selectAll().where('company_id', '=', company.id).where('type', '=', type).execute();

describe('the events outbox', () => {
  it('records an event with the change in the same transaction', async () => {
    const id = await api.db.transaction().execute(async (trx) => {
      await writeAudit(trx, { companyId: company.id, actor: 'admin', action: 'test.change' });
      return recordEvent(trx, { companyId: company.id, type: 'task.created', causedBy: 'admin', data: { reference: 'R-1' } });
    });
    expect(id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    const [event] = await eventsOf('task.created');
    expect(event).toMatchObject({ id, caused_by: 'admin', data: { reference: 'R-1' }, published_at: null });
  });

  it('leaves no event behind when the transaction rolls back', async () => {
    await expect(
      api.db.transaction().execute(async (trx) => {
        await recordEvent(trx, {
          companyId: company.id,
          type: 'task.done',
          causedBy: 'system',
          data: { reference: 'R-2' },
        });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await eventsOf('task.done')).toHaveLength(0);
  });

  it('takes only the catalogue’s event types: a misspelt one does not compile', () => {
    const misspelt: EventInput = {
      companyId: company.id,
      // @ts-expect-error: `lead.create` is not in the catalogue (schema/platform/events.ts): tsc refuses it.
      type: 'lead.create',
      causedBy: 'admin',
      data: {},
    };
    expect(eventTypes).not.toContain(misspelt.type);
    expect(eventTypes).toContain('lead.created');
  });

  it('names the cause as the spec does: admin, system, website or api:<key prefix>', () => {
    const key = { prefix: 'sk_AbCdEfGhIj' } as ApiKeyRow;
    expect(actorOf({ kind: 'admin' })).toBe('admin');
    expect(actorOf({ kind: 'server', key })).toBe('api:sk_AbCdEfGhIj');
    expect(
      actorOf({ kind: 'publishable', key: { prefix: 'pk_AbCdEfGhIj' } as ApiKeyRow, origin: 'https://www.example.com' }),
    ).toBe('website');
    expect(actorOf({ kind: 'anonymous' })).toBe('website');
  });
});
