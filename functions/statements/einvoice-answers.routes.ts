import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, problem } from '../../schema/common/api';
import { EinvoiceAnswer, EinvoiceAnswerReceipt } from '../../schema/statements/invoices';
import { receiveEinvoiceAnswer } from './einvoice-answers';

/**
 * The receiver of the company's Accredited Service Provider (docs/pint-ae.md, "Hand-off to the Accredited Service
 * Provider"): its answer about a document it was handed. The body is declared by reference only: nothing parses it
 * before its signature is verified (functions/statements/einvoice-answers.ts).
 */
const answerRoute = defineRoute({
  method: 'post',
  path: '/inbound/einvoice',
  operationId: 'receiveEinvoiceAnswer',
  tags: ['Inbound'],
  summary: 'Receive the Accredited Service Provider’s answer about an e-invoice',
  description:
    'The company’s provider says whether a tax invoice or credit note it was handed is `accepted` or `rejected` (with its reasons), signed with Standard Webhooks (`webhook-id`, `webhook-timestamp` within 5 minutes, `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` with the secret the company shares with its provider). The company comes from the host; the signature is the only credential: 401 `signature_rejected` when it fails, nothing changed. 404 for a document this company never issued. A repeat of the last message recorded, an older answer or the same verdict again answers `recorded: false`; an accepted document stays accepted (409).',
  access: { kind: 'inbound' },
  request: {
    body: {
      required: true,
      description: 'The answer, exactly as signed.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/EinvoiceAnswer' } } },
    },
  },
  responses: {
    200: json(EinvoiceAnswerReceipt, 'Verified; the document as it now stands.'),
    401: problem(
      '`signature_rejected`: the signature is missing or wrong, its timestamp more than 5 minutes from now, or the company has no provider. Nothing changed.',
    ),
    409: problem('`invalid_transition`: the document was accepted; it stays so.'),
  },
});

const receiveAnswer: Handler<typeof answerRoute> = async function receiveAnswer(c) {
  const body = await c.req.text();
  return c.json(await receiveEinvoiceAnswer(c.var.services, c.var.company, { body, headers: c.req.raw.headers }), 200);
};

export const einvoiceAnswers = createRouter().openapi(answerRoute, receiveAnswer);
einvoiceAnswers.openAPIRegistry.register('EinvoiceAnswer', EinvoiceAnswer);
