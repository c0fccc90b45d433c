import type { Context } from 'hono';
import { keyringOf } from './crypto-jwe';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { verifyChallenge } from './spam-check';

/**
 * The rules every form posted from a browser shares, after the key and origin are checked: the hidden
 * `website` field and the spam check. Returns false for a bot that filled the hidden field: the route then
 * answers as if it had succeeded and stores nothing (a bot learns nothing from the answer). `validate`, when
 * given, runs the form's own rules just before siteverify is asked: a Turnstile token is good once, so a
 * visitor's fixable mistake (a 400) must not spend it.
 */
export async function passesFormGuard(
  c: Context<AppEnv>,
  input: { challenge?: string; website?: string },
  validate?: () => Promise<void>,
): Promise<boolean> {
  const caller = c.var.caller;
  if (caller.kind !== 'publishable') return true;
  if (input.website !== undefined && input.website.trim() !== '') return false;
  if (input.challenge === undefined) {
    throw new ApiError('invalid_request', 'The request body fields are invalid.', {
      errors: [{ path: 'challenge', code: 'required', message: "The spam check's token is required." }],
    });
  }
  await validate?.();
  const { config, clientAddress } = c.var.services;
  await verifyChallenge(config, keyringOf(config), c.var.company, {
    token: input.challenge,
    origin: caller.origin,
    remoteip: clientAddress,
  });
  return true;
}
