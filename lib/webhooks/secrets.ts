/**
 * Signing secrets. A subscription signs with `whsec_` + base64 of 32 random bytes (Standard Webhooks). Signing
 * needs the secret itself, so it is stored encrypted: AES-256-GCM (Web Crypto, the same on Node and Workers)
 * under the WEBHOOK_SECRET_KEY configuration secret, with the subscription id as additional data.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
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

/** Encrypts and decrypts signing secrets; without a key, any use fails with a message naming the setting. */
export function secretBox(base64Key: string | undefined): SecretBox {
  let key: Promise<CryptoKey> | undefined;
  const keyOf = () => {
    if (!base64Key) throw new Error('WEBHOOK_SECRET_KEY is not set: webhook signing secrets cannot be encrypted or read.');
    key ??= crypto.subtle.importKey('raw', fromBase64(base64Key), 'AES-GCM', false, ['encrypt', 'decrypt']);
    return key;
  };
  return {
    async encrypt(secret, subscriptionId) {
      const iv = crypto.getRandomValues(new Uint8Array(ivBytes));
      const params = { name: 'AES-GCM', iv, additionalData: encoder.encode(subscriptionId) };
      const sealed = new Uint8Array(await crypto.subtle.encrypt(params, await keyOf(), encoder.encode(secret)));
      const out = new Uint8Array(ivBytes + sealed.length);
      out.set(iv);
      out.set(sealed, ivBytes);
      return out;
    },
    async decrypt(ciphertext, subscriptionId) {
      const bytes = new Uint8Array(ciphertext);
      const params = { name: 'AES-GCM', iv: bytes.slice(0, ivBytes), additionalData: encoder.encode(subscriptionId) };
      return decoder.decode(await crypto.subtle.decrypt(params, await keyOf(), bytes.slice(ivBytes)));
    },
  };
}
