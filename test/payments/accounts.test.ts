import { describe, expect, it } from 'vitest';
import { useWorld } from '../support/world';

/** A company's payment provider accounts in the admin API (issue 34): one per currency, secrets write-only, audited. */
const w = useWorld();

describe('payment accounts (admin API)', () => {
  it('connects, lists, changes and removes an account, never showing a secret, each change audited', async () => {
    const created = await w.admin('/payment-accounts', {
      provider: 'stripe',
      currency: 'AED',
      api_key: 'sk_test_accounts_key',
      webhook_secret: 'whsec_accounts_secret',
      card_fee: { kind: 'fixed', value: '5' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.account_id as string;
    expect(created.json).toMatchObject({
      provider: 'stripe',
      currency: 'AED',
      outlet: null,
      card_fee: { kind: 'fixed', value: '5.00' },
      webhook_path: `/api/v1/payments/webhooks/${id}`,
    });
    expect(created.text).not.toContain('sk_test_accounts_key');
    expect(created.text).not.toContain('whsec_accounts_secret');
    const row = await w.api.db.selectFrom('payment_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.api_key_jwe).not.toContain('sk_test');
    expect(row.webhook_secret_jwe).not.toContain('whsec');

    const twice = await w.admin('/payment-accounts', {
      provider: 'stripe',
      currency: 'AED',
      api_key: 'sk_test_second_key',
      webhook_secret: 'whsec_second_secret',
    });
    expect(twice.status).toBe(409);

    const list = await w.admin('/payment-accounts');
    expect(list.json.results.map((a: { account_id: string }) => a.account_id)).toEqual([id]);
    expect(list.text).not.toContain('sk_test');

    const changed = await w.admin(
      `/payment-accounts/${id}`,
      { webhook_secret: 'whsec_rolled_secret', card_fee: { kind: 'percent', value: '2.5' } },
      'PATCH',
    );
    expect(changed.status).toBe(200);
    expect(changed.json.card_fee).toEqual({ kind: 'percent', value: '2.50' });
    const after = await w.api.db.selectFrom('payment_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.webhook_secret_jwe).not.toBe(row.webhook_secret_jwe);
    expect(after.api_key_jwe).toBe(row.api_key_jwe);

    expect((await w.admin(`/payment-accounts/${id}`, undefined, 'DELETE')).status).toBe(204);
    expect((await w.admin(`/payment-accounts/${id}`)).status).toBe(404);
    const audit = await w.api.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('subject', '=', id)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['payment_account.created', 'payment_account.updated', 'payment_account.deleted']);
    expect(JSON.stringify(audit)).not.toContain('whsec_');
  });

  it('refuses bad input at the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'paypal', currency: 'AED', api_key: 'sk_test_12345678', webhook_secret: 'whsec_12345678' }, 'provider'],
      [{ provider: 'stripe', currency: 'aed', api_key: 'sk_test_12345678', webhook_secret: 'whsec_12345678' }, 'currency'],
      [{ provider: 'stripe', currency: 'ZZZ', api_key: 'sk_test_12345678', webhook_secret: 'whsec_12345678' }, 'currency'],
      [{ provider: 'stripe', currency: 'AED', webhook_secret: 'whsec_12345678' }, 'api_key'],
      [
        { provider: 'stripe', currency: 'AED', api_key: 'sk_test_12345678', webhook_secret: 'whsec_12345678', outlet: 'x' },
        'outlet',
      ],
      [
        {
          provider: 'stripe',
          currency: 'AED',
          api_key: 'sk_test_12345678',
          webhook_secret: 'whsec_12345678',
          card_fee: { kind: 'percent', value: '150' },
        },
        'card_fee.value',
      ],
      [
        {
          provider: 'stripe',
          currency: 'AED',
          api_key: 'sk_test_12345678',
          webhook_secret: 'whsec_12345678',
          card_fee: { kind: 'fixed', value: '1.234' },
        },
        'card_fee.value',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await w.admin('/payment-accounts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await w.admin('/payment-accounts')).json.results).toEqual([]);
  });
});
