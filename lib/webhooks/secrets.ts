import { openText, sealText } from '../crypto-jwe';

/**
 * Signing secrets. A subscription signs with `whsec_` + base64 of 32 random bytes (Standard Webhooks). Signing
 * needs the secret itself, so it is stored encrypted under the WEBHOOK_SECRET_KEY configuration secret, the same
 * way lead details are (lib/crypto-jwe.ts: compact JWE, `dir` + `A256GCM`), with the subscription id in the
 * authenticated header, so a secret copied to another subscription's row does not open. The column keeps bytes:
 * the JWE's ASCII text.
 *
 * Rows written before (raw Web Crypto AES-256-GCM: a 12-byte IV, then ciphertext and tag, the subscription id as
 * additional data, under the same key) are still read; every new secret (creation, rotation) is written as JWE, so
 * old rows leave as their secrets are rotated and expire. A JWE is told from an old row by its form: five
 * base64url parts joined by dots, which the random bytes of an old row never are in practice.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** A new signing secret, shown once to the operator. */
export function newSigningSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** A fresh WEBHOOK_SECRET_KEY value. */
export function newSecretKey(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

export type SecretBox = {
  encrypt(secret: string, subscriptionId: string): Promise<Uint8Array>;
  decrypt(ciphertext: Uint8Array, subscriptionId: string): Promise<string>;
};

const ivBytes = 12;
const jweForm = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*){4}$/;

/** A row written before JWE (see above): AES-256-GCM with the subscription id as additional data. */
async function decryptLegacy(
  bytes: Uint8Array<ArrayBuffer>,
  key: Uint8Array<ArrayBuffer>,
  subscriptionId: string,
): Promise<string> {
  const aes = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['decrypt']);
  const params = { name: 'AES-GCM', iv: bytes.slice(0, ivBytes), additionalData: encoder.encode(subscriptionId) };
  return decoder.decode(await crypto.subtle.decrypt(params, aes, bytes.slice(ivBytes)));
}

/** Encrypts and decrypts signing secrets; without a key, any use fails with a message naming the setting. */
export function secretBox(base64Key: string | undefined): SecretBox {
  const keyOf = () => {
    if (!base64Key) throw new Error('WEBHOOK_SECRET_KEY is not set: webhook signing secrets cannot be encrypted or read.');
    return fromBase64(base64Key);
  };
  return {
    async encrypt(secret, subscriptionId) {
      return encoder.encode(await sealText(keyOf(), secret, { kid: 'webhooks', subscription: subscriptionId }));
    },
    async decrypt(ciphertext, subscriptionId) {
      const bytes = new Uint8Array(ciphertext);
      const text = decoder.decode(bytes);
      if (!jweForm.test(text)) return decryptLegacy(bytes, keyOf(), subscriptionId);
      const { text: secret, header } = await openText(text, keyOf());
      if (header.subscription !== subscriptionId) throw new Error('This signing secret belongs to another subscription.');
      return secret;
    },
  };
}
