import { systemClock } from './clock';
import { base64url, CompactEncrypt, compactDecrypt, decodeProtectedHeader, type JWEHeaderParameters } from 'jose';
import { formatDate } from './dates';
import { ApiError } from './errors';

/**
 * Personal data kept encrypted at rest (lead `details`): compact JWE, `dir` + `A256GCM`, with the key id in
 * the protected header. New values use the current key; any configured key decrypts, so keys rotate by adding
 * a new key, making it current, and dropping the old one once nothing needs it.
 */
export type Keyring = { currentKid: string; keys: ReadonlyMap<string, Uint8Array> };

type KeyConfig = { DETAILS_KEYS?: Record<string, string>; DETAILS_KEY_ID?: string };

const keyrings = new WeakMap<object, Keyring | null>();

/** The keyring of a configuration (parsed once per config object); undefined when no keys are configured. */
export function keyringOf(config: KeyConfig): Keyring | undefined {
  let keyring = keyrings.get(config);
  if (keyring === undefined) {
    keyring = null;
    if (config.DETAILS_KEYS && config.DETAILS_KEY_ID) {
      const keys = new Map(Object.entries(config.DETAILS_KEYS).map(([kid, key]) => [kid, base64url.decode(key)] as const));
      keyring = { currentKid: config.DETAILS_KEY_ID, keys };
    }
    keyrings.set(config, keyring);
  }
  return keyring ?? undefined;
}

/** A fresh key and id, for DETAILS_KEYS (the Node server's first start, tests, operators rotating keys). */
export function newDetailsKey(now: Date = systemClock()): { kid: string; key: string } {
  const kid = `k${formatDate(now.getTime()).replaceAll('-', '')}-${base64url.encode(crypto.getRandomValues(new Uint8Array(4)))}`;
  return { kid, key: base64url.encode(crypto.getRandomValues(new Uint8Array(32))) };
}

function unavailable(detail: string): ApiError {
  return new ApiError('encryption_unavailable', detail);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Each raw key imported into Web Crypto once per process or isolate (jose imports a raw key again for every value it
 * seals or opens: an inbound delivery opened its channel's secret, and paid that import, on every request).
 */
const importedKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
function aesKey(raw: Uint8Array): Promise<CryptoKey> {
  let key = importedKeys.get(raw);
  if (!key) {
    key = crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);
    importedKeys.set(raw, key);
  }
  return key;
}

/**
 * The one way this platform encrypts a secret at rest (lead details, Turnstile secrets, webhook signing secrets):
 * compact JWE, `dir` + `A256GCM` under a 32-byte key. `header` goes into the protected header, which is
 * authenticated (its fields cannot be changed without the value failing to open) but not secret.
 */
export async function sealText(key: Uint8Array, text: string, header: Record<string, string>): Promise<string> {
  return new CompactEncrypt(encoder.encode(text))
    .setProtectedHeader({ ...header, alg: 'dir', enc: 'A256GCM' })
    .encrypt(await aesKey(key));
}

/** Opens a value from sealText with its key; throws on a wrong key, a changed value or another algorithm. */
export async function openText(jwe: string, key: Uint8Array): Promise<{ text: string; header: JWEHeaderParameters }> {
  const { plaintext, protectedHeader } = await compactDecrypt(jwe, await aesKey(key), {
    keyManagementAlgorithms: ['dir'],
    contentEncryptionAlgorithms: ['A256GCM'],
  });
  return { text: decoder.decode(plaintext), header: protectedHeader };
}

/** The `kid` a sealed value's header names and that key of the keyring: undefined where either is missing or unreadable. */
function namedKey(keyring: Keyring | undefined, jwe: string): { kid: string | undefined; key: Uint8Array | undefined } {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jwe).kid;
  } catch {
    kid = undefined;
  }
  return { kid, key: kid === undefined ? undefined : keyring?.keys.get(kid) };
}

export async function encryptJson(keyring: Keyring | undefined, value: unknown): Promise<string> {
  const key = keyring?.keys.get(keyring.currentKid);
  if (!keyring || !key) throw unavailable('Details cannot be stored: no encryption key is configured (DETAILS_KEYS).');
  return sealText(key, JSON.stringify(value), { kid: keyring.currentKid });
}

/** Decrypts with the key named by the value's `kid`; a missing key or a value that fails to open is a 503. */
export async function decryptJson(keyring: Keyring | undefined, jwe: string): Promise<unknown> {
  const { kid, key } = namedKey(keyring, jwe);
  if (!key) throw unavailable(`Stored details need the encryption key "${kid ?? '?'}", which is not configured.`);
  try {
    return JSON.parse((await openText(jwe, key)).text);
  } catch {
    throw unavailable(`Stored details could not be decrypted with the key "${kid}".`);
  }
}

/**
 * A secret of a record (an inbound channel's app secret, signing secret or verify token) sealed with the details
 * keyring's current key, `bound` (the record's id) in the authenticated header: a value copied to another record's
 * row does not open. 503 without a key.
 */
export async function sealSecret(keyring: Keyring | undefined, secret: string, bound: string): Promise<string> {
  const key = keyring?.keys.get(keyring.currentKid);
  if (!keyring || !key) throw unavailable('Secrets cannot be stored: no encryption key is configured (DETAILS_KEYS).');
  return sealText(key, secret, { kid: keyring.currentKid, bound });
}

/** Opens a value of {@link sealSecret} for the record `bound`; a missing key, another record's value or a change: 503. */
export async function openSecret(keyring: Keyring | undefined, jwe: string, bound: string): Promise<string> {
  const { kid, key } = namedKey(keyring, jwe);
  if (!key) throw unavailable(`A stored secret needs the encryption key "${kid ?? '?'}", which is not configured.`);
  try {
    const { text, header } = await openText(jwe, key);
    if (header.bound === bound) return text;
  } catch {
    // Reported below, as a value that does not open.
  }
  throw unavailable('A stored secret could not be opened for this record.');
}
