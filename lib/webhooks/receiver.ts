import { Receiver } from '@upstash/qstash';
import type { Config } from '../config';
import { ApiError } from '../errors';
import type { CallbackRequest } from './types';

/**
 * Checks that a callback really comes from QStash: the Upstash-Signature JWT (HS256 with the current or the
 * next signing key, issuer Upstash, not expired) names this URL as subject and carries the body's SHA-256.
 * The URL is rebuilt from INTERNAL_BASE_URL (what we published), not from the Host the request claims.
 */
export async function verifyQStashRequest(config: Config, request: CallbackRequest): Promise<void> {
  if (!config.QSTASH_CURRENT_SIGNING_KEY || !config.QSTASH_NEXT_SIGNING_KEY) {
    throw new ApiError('signature_invalid', 'QStash signing keys are not configured on this deployment.');
  }
  if (!request.signature) throw new ApiError('signature_invalid', 'The Upstash-Signature header is missing.');
  const receiver = new Receiver({
    currentSigningKey: config.QSTASH_CURRENT_SIGNING_KEY,
    nextSigningKey: config.QSTASH_NEXT_SIGNING_KEY,
    devMode: false,
  });
  const url = config.INTERNAL_BASE_URL ? `${config.INTERNAL_BASE_URL}${request.path}` : request.url;
  const valid = await receiver
    .verify({ signature: request.signature, body: request.body, url, clockTolerance: 5 })
    .catch(() => false);
  if (!valid) throw new ApiError('signature_invalid', 'The Upstash-Signature is not valid for this request.');
}
