import { createRouter } from '../../lib/app';
import { writeScope } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { RentPaymentParams } from '../../schema/leases/rent-payments';
import { PaymentLinkInput, PaymentLinkSchema } from '../../schema/leases/payment-links';
import { rentPaymentLink } from './payment-link';
import { leasesRoute } from './scopes';

/** A payment link for a rent payment still due (issue 34; docs/api-reference.md, "Payments"). */
const linkRoute = leasesRoute('write:leases', {
  method: 'post',
  path: '/rent-payments/{payment_id}/payment-link',
  operationId: 'createRentPaymentLink',
  summary: 'A payment link for a rent payment still due: the provider’s hosted page, by card or bank',
  description:
    'Creates a checkout at the company’s payment provider for the currency (Stripe, N-Genius) for the amount due, plus ' +
    'the card fee where the company’s account passes it on; the open link is answered again while it takes payments. ' +
    'When the provider confirms the payment (its signed webhook, read back from the provider), the rent payment becomes ' +
    '`received` with `booked_on` today in the company’s time zone, as a receipt staff record.',
  request: {
    params: RentPaymentParams,
    body: jsonBody(PaymentLinkInput, { return_url: 'https://www.example.com/rent/paid', email: 'renter@example.com' }),
  },
  responses: {
    201: json(PaymentLinkSchema, 'A new link'),
    200: json(PaymentLinkSchema, 'The open link of the payment, made before'),
    409: problem(
      '`invalid_transition`: the payment is not due (`allowed` lists where it may move); `payment_account_missing`: the ' +
        'company has no payment account for its currency',
    ),
    503: problem('`provider_unavailable`: the provider did not answer; nothing was recorded'),
  },
});

const postLink: Handler<typeof linkRoute> = async function postRentPaymentLink(c) {
  const { answer, created } = await rentPaymentLink(
    writeScope(c),
    c.var.services.config,
    c.req.valid('param').payment_id,
    c.req.valid('json'),
  );
  return c.json(answer, created ? 201 : 200);
};

export const rentPaymentLinks = createRouter().openapi(linkRoute, postLink);
