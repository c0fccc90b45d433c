import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import {
  accountIdParam,
  PaymentAccountInput,
  PaymentAccountListSchema,
  PaymentAccountSchema,
  PaymentAccountUpdate,
} from '../../schema/payments/accounts';
import { addAccount, changeAccount, companyAccounts, findAccount, removeAccount } from './accounts';
import { presentAccount } from './accounts.present';

/** A company's payment provider accounts (issue 34), in the admin API (composed by functions/app.ts). */
const base = '/companies/{company_id}/payment-accounts';
const accountParams = companyParam.extend({ account_id: accountIdParam });

const list = adminRoute({
  method: 'get',
  path: base,
  summary: 'The company’s payment provider accounts, one per currency (never their secrets)',
  request: { params: companyParam },
  responses: { 200: json(PaymentAccountListSchema) },
});
const create = adminRoute({
  method: 'post',
  path: base,
  summary: 'Connect a payment provider account (Stripe, N-Genius) for a currency',
  description:
    'The key and the webhook signing secret are sealed and never shown again. Give the provider the answer’s `webhook_path` on one of the company’s hosts. One account per currency: a second is 409 `conflict`.',
  request: {
    params: companyParam,
    body: jsonBody(PaymentAccountInput, {
      provider: 'stripe',
      currency: 'AED',
      api_key: 'sk_test_51Hx…',
      webhook_secret: 'whsec_3kQ…',
      card_fee: null,
    }),
  },
  responses: { 201: json(PaymentAccountSchema, 'Connected') },
});
const one = adminRoute({
  method: 'get',
  path: `${base}/{account_id}`,
  summary: 'One payment provider account',
  request: { params: accountParams },
  responses: { 200: json(PaymentAccountSchema) },
});
const update = adminRoute({
  method: 'patch',
  path: `${base}/{account_id}`,
  summary: 'Replace an account’s key or signing secret, its outlet or card fee',
  request: { params: accountParams, body: jsonBody(PaymentAccountUpdate) },
  responses: { 200: json(PaymentAccountSchema) },
});
const remove = adminRoute({
  method: 'delete',
  path: `${base}/{account_id}`,
  summary: 'Disconnect an account that took no payment',
  request: { params: accountParams },
  responses: { 204: { description: 'Removed' } },
});

const listAccounts: Handler<typeof list> = async function listPaymentAccounts(c) {
  const rows = await companyAccounts(c.var.services.db, c.req.valid('param').company_id);
  return c.json({ results: rows.map(presentAccount), next_cursor: null }, 200);
};
const postAccount: Handler<typeof create> = async function addPaymentAccount(c) {
  const { db, config } = c.var.services;
  const row = await addAccount(db, keyringOf(config), c.req.valid('param').company_id, c.req.valid('json'));
  return c.json(presentAccount(row), 201);
};
const oneAccount: Handler<typeof one> = async function onePaymentAccount(c) {
  const { company_id, account_id } = c.req.valid('param');
  return c.json(presentAccount(await findAccount(c.var.services.db, company_id, account_id)), 200);
};
const patchAccount: Handler<typeof update> = async function changePaymentAccount(c) {
  const { db, config } = c.var.services;
  const { company_id, account_id } = c.req.valid('param');
  return c.json(presentAccount(await changeAccount(db, keyringOf(config), company_id, account_id, c.req.valid('json'))), 200);
};
const deleteAccount: Handler<typeof remove> = async function removePaymentAccount(c) {
  const { company_id, account_id } = c.req.valid('param');
  await removeAccount(c.var.services.db, company_id, account_id);
  return c.body(null, 204);
};

export const paymentsAdmin = createRouter()
  .openapi(list, listAccounts)
  .openapi(create, postAccount)
  .openapi(one, oneAccount)
  .openapi(update, patchAccount)
  .openapi(remove, deleteAccount);
