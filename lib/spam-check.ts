import { type Keyring, decryptJson, encryptJson } from './crypto-jwe';
import type { Executor } from './db/index';
import { ApiError } from './errors';
import type { Company } from '../schema/platform/db';

/**
 * The spam check of visitor forms: Cloudflare Turnstile's siteverify. The token a page's widget produced is
 * sent with the company's secret and the visitor's address; the answer must be a success for the host of the
 * page's origin. Turnstile's documented test widget (site key 1x00000000000000000000AA) produces
 * `developmentToken`: only a development workspace accepts it, without asking Cloudflare.
 */
export const developmentToken = 'XXXX.DUMMY.TOKEN.XXXX';

export type SpamCheckConfig = { TURNSTILE_SITEVERIFY_URL: string; SPAM_CHECK_TIMEOUT_MS: number };

type SiteverifyAnswer = { success?: unknown; hostname?: unknown; 'error-codes'?: unknown };

/** The company's secret, decrypted; undefined when none is configured. */
async function secretOf(company: Company, keyring: Keyring | undefined): Promise<string | undefined> {
  if (!company.spam_check_secret_jwe) return undefined;
  const value = await decryptJson(keyring, company.spam_check_secret_jwe);
  return typeof value === 'string' ? value : undefined;
}

/** Stores (encrypted) or removes the company's Turnstile secret. */
/** The Turnstile secret as stored (`spam_check_secret_jwe`): sealed with the details keys. */
export const sealSpamCheckSecret = (keyring: Keyring | undefined, secret: string) => encryptJson(keyring, secret);

export async function setSpamCheckSecret(
  db: Executor,
  companyId: string,
  secret: string | null,
  keyring: Keyring | undefined,
): Promise<void> {
  const sealed = secret === null ? null : await sealSpamCheckSecret(keyring, secret);
  await db.updateTable('companies').set({ spam_check_secret_jwe: sealed }).where('id', '=', companyId).execute();
}

/**
 * Verifies a form's challenge, or throws: 403 `challenge_failed` when Turnstile says no (or vouches for
 * another host), 503 `spam_check_unavailable` when it cannot be asked. Nothing is recorded before this passes.
 */
export async function verifyChallenge(
  config: SpamCheckConfig,
  keyring: Keyring | undefined,
  company: Company,
  input: { token: string; origin: string; remoteip: string },
): Promise<void> {
  if (company.environment === 'development' && input.token === developmentToken) return;
  const secret = await secretOf(company, keyring);
  if (!secret) {
    throw new ApiError(
      'spam_check_unavailable',
      company.environment === 'development'
        ? `No Turnstile secret is configured; on a development workspace the test token "${developmentToken}" passes.`
        : 'The company has not configured its spam check (Turnstile secret).',
    );
  }
  const form = new URLSearchParams({ secret, response: input.token });
  if (input.remoteip && input.remoteip !== 'unknown') form.set('remoteip', input.remoteip);
  let answer: SiteverifyAnswer;
  try {
    const response = await fetch(config.TURNSTILE_SITEVERIFY_URL, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(config.SPAM_CHECK_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`siteverify answered ${response.status}`);
    answer = (await response.json()) as SiteverifyAnswer;
  } catch (error) {
    console.error('spam check: siteverify failed:', error instanceof Error ? error.message : error);
    throw new ApiError('spam_check_unavailable', 'The spam check could not be reached; nothing was recorded. Try again.');
  }
  if (answer.success !== true) {
    const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].filter((x) => typeof x === 'string') : [];
    throw new ApiError('challenge_failed', `The spam check failed${codes.length ? ` (${codes.join(', ')})` : ''}.`);
  }
  if (answer.hostname !== new URL(input.origin).hostname) {
    throw new ApiError('challenge_failed', "The spam check's token was issued for another site.");
  }
}
