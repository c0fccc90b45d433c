import type { Config } from '../config';
import { type Keyring, openSecret } from '../crypto-jwe';
import type { Db } from '../db/index';
import type { PaymentAccountRow } from '../../schema/platform/payments-db';
import type { PaymentProvider, ProviderAccount, ProviderFetch, ProviderName } from './provider';
import { ngeniusProvider } from './ngenius';
import { stripeAmountStep, stripeProvider } from './stripe';

/**
 * The payment providers by name (issue 34): a company's connected account opened (its sealed secrets, the provider's
 * API origin from the platform's configuration, never from the company) and the adapter that speaks for it.
 */

/** The platform's own fetch to a provider's API origin (configuration, not a company's URL: no outbound guard). */
export const platformProviderFetch: ProviderFetch = (input, init) => fetch(input, init);

/** The provider's API origin: the platform's configuration (a stand-in's on loopback in tests). */
export function providerBaseUrl(config: Pick<Config, 'STRIPE_API_BASE' | 'NGENIUS_API_BASE'>, provider: ProviderName): string {
  return provider === 'stripe' ? config.STRIPE_API_BASE : config.NGENIUS_API_BASE;
}

/**
 * A provider in test mode (the test events' fixtures, functions/triggers-scheduled.ts): the answers the account's
 * provider would give, made by the caller, as a provider's test mode makes them; nothing is sent anywhere.
 */
export type TestModeProvider = (provider: ProviderName) => PaymentProvider;

/**
 * What every payment write of a company takes: the database, the keys, the clock, and how it reaches the provider: the
 * platform's settings and fetch, or a provider in test mode.
 */
export type PaymentsContext = {
  db: Db;
  keyring: Keyring | undefined;
  now: Date;
  companyId: string;
} & (
  | { config: Config; send: ProviderFetch; testMode?: undefined }
  | { testMode: TestModeProvider; config?: undefined; send?: undefined }
);

/** The provider of a company's account as the context reaches it: the adapter (its secrets opened), or the test mode's. */
export async function providerOf(
  ctx: Pick<PaymentsContext, 'keyring' | 'config' | 'send' | 'testMode'>,
  row: Pick<PaymentAccountRow, 'id' | 'provider' | 'api_key_jwe' | 'webhook_secret_jwe' | 'outlet'>,
): Promise<PaymentProvider> {
  if (ctx.testMode) return ctx.testMode(row.provider);
  if (!ctx.config || !ctx.send) throw new Error('a payments context reaches no provider');
  return providerFor(await openAccount(row, ctx.keyring, ctx.config), ctx.send);
}

/** A stored account with its secrets opened (each bound to the account's id: a copied value does not open). */
export async function openAccount(
  row: Pick<PaymentAccountRow, 'id' | 'provider' | 'api_key_jwe' | 'webhook_secret_jwe' | 'outlet'>,
  keyring: Keyring | undefined,
  config: Pick<Config, 'STRIPE_API_BASE' | 'NGENIUS_API_BASE'> & Partial<Pick<Config, 'PAYMENT_PROVIDER_TIMEOUT_MS'>>,
): Promise<ProviderAccount> {
  const [apiKey, webhookSecret] = await Promise.all([
    openSecret(keyring, row.api_key_jwe, row.id),
    openSecret(keyring, row.webhook_secret_jwe, row.id),
  ]);
  return {
    provider: row.provider,
    apiKey,
    webhookSecret,
    outlet: row.outlet,
    baseUrl: providerBaseUrl(config, row.provider),
    timeoutMs: config.PAYMENT_PROVIDER_TIMEOUT_MS,
  };
}

/** The adapter of an account's provider. */
export function providerFor(account: ProviderAccount, send: ProviderFetch): PaymentProvider {
  switch (account.provider) {
    case 'stripe':
      return stripeProvider(account, send);
    case 'ngenius':
      return ngeniusProvider(account, send, account.timeoutMs === undefined ? {} : { timeoutMs: account.timeoutMs });
  }
}

/** Whether the provider needs the payer's email to make a checkout (an N-Genius order's mandatory field). */
export function needsEmail(provider: ProviderName): boolean {
  return provider === 'ngenius';
}

/** The step (in minor units) a provider takes amounts of `currency` in: the domain rounds up to it. */
export function amountStep(provider: ProviderName, currency: string): number {
  return provider === 'stripe' ? stripeAmountStep(currency) : 1;
}
