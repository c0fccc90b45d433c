import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import { answerSignatureFailure, einvoiceMachine, openEinvoiceSecret } from '../../lib/einvoice/handoff';
import type { Services } from '../../lib/env';
import { ApiError, notFound } from '../../lib/errors';
import { fieldErrors } from '../../lib/request-errors';
import { checkMove } from '../../lib/transitions';
import { writeStatement } from '../../lib/write';
import type { Company } from '../../schema/platform/db';
import { EinvoiceAnswer } from '../../schema/statements/invoices';

/**
 * The provider's answer about a document it was handed (POST /api/v1/inbound/einvoice; lib/einvoice/handoff.ts): the
 * company from the host, the signature with the secret the company shares with its provider as the only credential
 * (401 `signature_rejected`, nothing read or changed, when it fails or the company has no provider), then the body
 * (400 at its field). One read of the document (404 when the company never issued it, another company's included),
 * the decision here, one write with its audit row.
 *
 * Replays: a message more than 5 minutes from now is refused with its signature; within them, a repeat of the message
 * last recorded (its `webhook-id`) changes nothing, nor does an answer signed before the one recorded, nor the same
 * verdict again (each `recorded: false`). An accepted document stays accepted (409 `invalid_transition`).
 */
export async function receiveEinvoiceAnswer(services: Services, company: Company, request: { body: string; headers: Headers }) {
  const now = services.now();
  if (company.einvoice_secret_jwe === null) {
    throw new ApiError('signature_rejected', 'The company has no Accredited Service Provider configured.');
  }
  const secret = await openEinvoiceSecret(keyringOf(services.config), company.einvoice_secret_jwe);
  const failure = answerSignatureFailure(request.body, request.headers, secret, now);
  if (failure) throw new ApiError('signature_rejected', failure);
  const messageId = request.headers.get('webhook-id') as string;
  const signedAt = new Date(Number(request.headers.get('webhook-timestamp')) * 1000);

  let json: unknown;
  try {
    json = JSON.parse(request.body);
  } catch {
    throw new ApiError('invalid_json', 'The body is not JSON.');
  }
  const parsed = EinvoiceAnswer.safeParse(json);
  if (!parsed.success) {
    throw new ApiError('invalid_request', 'The answer is invalid.', { errors: fieldErrors(parsed.error) });
  }
  const answer = parsed.data;
  if (messageId.length > 200) {
    throw new ApiError('invalid_request', 'The webhook-id header is too long.', {
      errors: [{ path: 'webhook-id', code: 'too_big', message: 'At most 200 characters.' }],
    });
  }

  let found = services.db
    .selectFrom('tax_documents')
    .select(['id', 'number', 'einvoice_status', 'einvoice_answer_id', 'einvoice_answer_at'])
    .where('company_id', '=', company.id);
  if (answer.document_id !== undefined) found = found.where('id', '=', answer.document_id);
  if (answer.number !== undefined) found = found.where('number', '=', answer.number);
  const document = await found.executeTakeFirst();
  if (!document) throw notFound(`The document ${answer.number ?? answer.document_id}`);

  const unchanged = { id: document.id, number: document.number, status: document.einvoice_status, recorded: false };
  if (document.einvoice_answer_id === messageId) return unchanged;
  if (document.einvoice_answer_at !== null && document.einvoice_answer_at > signedAt) return unchanged;
  if (document.einvoice_status === answer.status) return unchanged;
  checkMove(einvoiceMachine, document.number, document.einvoice_status, answer.status);

  const update = services.db
    .updateTable('tax_documents')
    .set({
      einvoice_status: answer.status,
      einvoice_reasons: answer.status === 'rejected' ? JSON.stringify(answer.reasons) : null,
      einvoice_answered_at: now,
      einvoice_answer_id: messageId,
      einvoice_answer_at: signedAt,
      einvoice_next_attempt_at: null,
    })
    .where('id', '=', document.id)
    // Under the row lock: still the state decided on (a concurrent answer wins, this one changes nothing).
    .where('einvoice_status', '=', document.einvoice_status)
    .returning(['id', 'company_id', 'number', 'einvoice_status']);
  const { rows } = await writeStatement(
    [
      sql`changed as (${update})`,
      auditCte('audited', 'changed', {
        actor: 'system',
        action: `einvoice.${answer.status}`,
        subject: 'number',
        details: { message_id: messageId, reasons: answer.reasons.length },
      }),
    ],
    sql`select id, number, einvoice_status from changed`,
  ).execute(services.db);
  const changed = rows[0] as { id: string; number: string; einvoice_status: 'accepted' | 'rejected' } | undefined;
  if (!changed) return unchanged;
  return { id: changed.id, number: changed.number, status: changed.einvoice_status, recorded: true };
}
