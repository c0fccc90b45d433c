import type { Context } from 'hono';
import { auditRead } from '../../lib/audit';
import type { AppEnv } from '../../lib/env';
import { keepServicesUntil } from '../../lib/request-lifecycle';
import { monthStatements } from './statements-month';
import { presentStatement } from './statements.present';

const utf8 = new TextEncoder();

/**
 * Every owner statement of a month in one answer, streamed (issue 39), as the journal is: the read's audit (every
 * owner it names) before the first byte; then the month's head and the statements, a batch of owners at a time
 * (functions/statements/statements-month.ts), each read once the client took the previous one. Each statement is
 * `presentStatement`'s, as `GET /owner-statements` answers it. A failure mid-way aborts the body (a truncated
 * document, never a shorter valid one).
 */
export async function statementsExportAnswer(c: Context<AppEnv>, month: string): Promise<Response> {
  const { db, now } = c.var.services;
  const data = await monthStatements(db, c.var.company, month, now());
  await auditRead(
    c,
    data.owners.map((owner) => owner.reference),
  );
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = async (text: string) => {
    await writer.ready;
    await writer.write(utf8.encode(text));
  };
  const head = { month: data.span.month, from: data.span.from, to: data.span.to, ...data.closing };
  const streamed = (async () => {
    try {
      await write(`${JSON.stringify(head).slice(0, -1)},"statements":[`);
      let first = true;
      for await (const batch of data.statements()) {
        await write(`${first ? '' : ','}${batch.map((statement) => JSON.stringify(presentStatement(statement))).join(',')}`);
        first = false;
      }
      await write(']}');
      await writer.close();
    } catch (error) {
      console.error(`request ${c.var.requestId}: the owner statements of ${month} stopped:`, error);
      await writer.abort(error).catch(() => {});
    }
  })();
  keepServicesUntil(c, streamed);
  return c.body(readable, 200, { 'Content-Type': 'application/json' });
}
