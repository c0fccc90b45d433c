import type { TestModeProvider } from './index';
import { type CheckoutInput, ProviderRefused, WebhookRefused } from './provider';

/**
 * A provider in test mode (issue 38, the test events' fixtures; docs/api-reference.md, "Test events"), as Stripe's test
 * mode answers: a checkout it was asked for is kept in memory and read back with `outcome` (paid by card, or failed), a
 * refund is accepted at once, and a delivery of its own (`{ "id": event id, "checkout": checkout id }`) is its notice.
 * Nothing leaves the process; every answer has the shape the real adapters answer (lib/payments/provider.ts), so the
 * payment writes that take them are the real ones.
 */
export function testModeProvider(outcome: 'succeeded' | 'failed', token: string, now: Date): TestModeProvider {
  const checkouts = new Map<string, CheckoutInput>();
  return (name) => ({
    name,
    async createCheckout(input) {
      const checkoutId = `cs_test_${token}`;
      checkouts.set(checkoutId, input);
      return { checkoutId, url: `https://checkout.example.com/test/${checkoutId}`, expiresAt: input.expiresAt ?? null };
    },
    async readCheckout(checkoutId) {
      const input = checkouts.get(checkoutId);
      if (!input) throw new ProviderRefused(name, 404, `No checkout ${checkoutId} in test mode.`);
      const paid = outcome === 'succeeded';
      return {
        checkoutId,
        status: outcome,
        reference: input.reference,
        amountMinor: input.amountMinor,
        currency: input.currency,
        paymentId: paid ? `pi_test_${token}` : null,
        feeMinor: null,
        netMinor: null,
        paidAt: paid ? now : null,
        method: paid ? 'card' : null,
      };
    },
    async refund(input) {
      return { refundId: `re_test_${token}`, status: 'succeeded', amountMinor: input.amountMinor, currency: input.currency };
    },
    async verifyWebhook(rawBody) {
      const body = JSON.parse(rawBody) as { id?: unknown; checkout?: unknown };
      if (typeof body.id !== 'string' || typeof body.checkout !== 'string') {
        throw new WebhookRefused('body_invalid', 'A test mode delivery names its event and checkout.');
      }
      return { eventId: body.id, kind: 'checkout', checkoutId: body.checkout, refundId: null };
    },
  });
}
