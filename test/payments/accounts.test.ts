import { describe, expect, it } from 'vitest';
import { accountsOf, connectStripe, duePayment, otherWorld, paymentLink, usePaymentsWorld } from './support';

/** A company's payment provider accounts in the admin API (issue 34): one per currency, secrets write-only, audited. */
const { w } = usePaymentsWorld();
const accounts = () => accountsOf(w);

describe('payment accounts (admin API)', () => {
  it('connects, lists, changes and removes an account, never showing a secret, each change audited', async () => {
    const created = await accounts().add({
      provider: 'stripe',
      currency: 'AED',
      api_key: 'sk_test_accounts_key',
      webhook_secret: 'whsec_accounts_secret',
      card_fee: { kind: 'fixed', value: '5' },
    });
    const shown = JSON.stringify(created.data ?? created.error);
    expect(created.response.status, shown).toBe(201);
    const id = created.data?.account_id as string;
    expect(created.data).toMatchObject({
      provider: 'stripe',
      currency: 'AED',
      outlet: null,
      card_fee: { kind: 'fixed', value: '5.00' },
      webhook_path: `/api/v1/payments/webhooks/${id}`,
    });
    expect(shown).not.toContain('sk_test_accounts_key');
    expect(shown).not.toContain('whsec_accounts_secret');
    const row = await w.api.db.selectFrom('payment_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.api_key_jwe).not.toContain('sk_test');
    expect(row.webhook_secret_jwe).not.toContain('whsec');

    const twice = await accounts().add({
      provider: 'stripe',
      currency: 'AED',
      api_key: 'sk_test_second_key',
      webhook_secret: 'whsec_second_secret',
    });
    expect(twice.response.status).toBe(409);

    const list = await accounts().list();
    expect(list.data?.results.map((a) => a.account_id)).toEqual([id]);
    expect(JSON.stringify(list.data)).not.toContain('sk_test');

    const changed = await accounts().change(id, {
      webhook_secret: 'whsec_rolled_secret',
      card_fee: { kind: 'percent', value: '2.5' },
    });
    expect(changed.response.status).toBe(200);
    expect(changed.data?.card_fee).toEqual({ kind: 'percent', value: '2.50' });
    const after = await w.api.db.selectFrom('payment_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.webhook_secret_jwe).not.toBe(row.webhook_secret_jwe);
    expect(after.api_key_jwe).toBe(row.api_key_jwe);

    expect((await accounts().remove(id)).response.status).toBe(204);
    expect((await accounts().read(id)).response.status).toBe(404);
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
      const res = await accounts().add(body);
      expect(res.response.status, JSON.stringify(body)).toBe(400);
      expect(
        (res.error?.errors ?? []).map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await accounts().list()).data?.results).toEqual([]);
  });

  it('changes and removes only the company’s own account, and never one that took a payment: nothing changed', async () => {
    const other = await otherWorld(w);
    const theirs = await connectStripe(other);
    const audited = () =>
      w.api.db.selectFrom('audit_log').select('action').where('subject', '=', theirs.id).orderBy('id').execute();
    const before = await audited();
    expect((await accounts().change(theirs.id, { webhook_secret: 'whsec_not_yours_to_change' })).response.status).toBe(404);
    expect((await accounts().remove(theirs.id)).response.status).toBe(404);
    expect((await accountsOf(other).read(theirs.id)).response.status).toBe(200);
    expect(await audited()).toEqual(before);

    // Their account takes a payment (a link for a rent payment): it stays, 409, no deletion audited.
    const { response } = await paymentLink(other, await duePayment(other));
    expect(response.status).toBe(201);
    const kept = await accountsOf(other).remove(theirs.id);
    expect(kept.response.status).toBe(409);
    expect(kept.error?.code).toBe('conflict');
    expect((await accountsOf(other).read(theirs.id)).response.status).toBe(200);
    expect((await audited()).map((a) => a.action)).toEqual(['payment_account.created']);
    await other.close();
  });
});
