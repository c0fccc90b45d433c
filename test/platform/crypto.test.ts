import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hexHmacMatches, hmacSha256, sha256 } from '../../lib/crypto';
import { newDetailsKey, openText, sealText } from '../../lib/crypto-jwe';
import { base64url } from 'jose';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

/** Web Crypto's HMAC-SHA256, as Workers compute it (lib/crypto.ts takes this path where Node's crypto is missing). */
async function webCryptoHmac(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<string> {
  const imported = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(new Uint8Array(await crypto.subtle.sign('HMAC', imported, data)));
}

describe('lib/crypto: hashes', () => {
  // RFC 4231 §4.3 (test case 2) and §4.7 (test case 6: a key longer than the block size, hashed first).
  it('computes HMAC-SHA256 as RFC 4231 publishes it', async () => {
    expect(hex(await hmacSha256('Jefe', bytes('what do ya want for nothing?')))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    const longKey = new Uint8Array(131).fill(0xaa);
    expect(hex(await hmacSha256(longKey, bytes('Test Using Larger Than Block-Size Key - Hash Key First')))).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    );
  });

  it('gives the bytes Web Crypto gives, for text and byte keys', async () => {
    for (let i = 0; i < 20; i++) {
      const key = crypto.getRandomValues(new Uint8Array(1 + i * 7));
      const data = crypto.getRandomValues(new Uint8Array(i * 97));
      expect(hex(await hmacSha256(key, data))).toBe(await webCryptoHmac(key, data));
      const textKey = `sécret ${i} ✓`;
      expect(hex(await hmacSha256(textKey, data))).toBe(await webCryptoHmac(bytes(textKey), data));
    }
  });

  it('matches a hex signature in either case and refuses another body, key or a text that is not hex', async () => {
    const body = bytes('{"object":"whatsapp_business_account"}');
    const signature = createHmac('sha256', 'app-secret').update(body).digest('hex');
    expect(await hexHmacMatches('app-secret', body, signature)).toBe(true);
    expect(await hexHmacMatches('app-secret', body, signature.toUpperCase())).toBe(true);
    expect(await hexHmacMatches('app-secret', bytes('{}'), signature)).toBe(false);
    expect(await hexHmacMatches('other-secret', body, signature)).toBe(false);
    expect(await hexHmacMatches('app-secret', body, `${signature.slice(0, -1)}g`)).toBe(false);
  });

  it('computes SHA-256 as FIPS 180-2 publishes it ("abc")', async () => {
    expect(hex(await sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(await sha256('é'))).toBe(createHash('sha256').update('é', 'utf8').digest('hex'));
  });
});

describe('lib/crypto-jwe: a key imported once', () => {
  it('seals and opens many values with one key, and another key opens none of them', async () => {
    const key = base64url.decode(newDetailsKey().key);
    const other = base64url.decode(newDetailsKey().key);
    const sealed = await Promise.all(Array.from({ length: 5 }, (_, i) => sealText(key, `secret ${i}`, { kid: 'k' })));
    expect(new Set(sealed).size).toBe(5);
    for (const [i, value] of sealed.entries()) {
      expect((await openText(value, key)).text).toBe(`secret ${i}`);
      // The same bytes in another array open it too: the key is what is in it, not the array.
      expect((await openText(value, new Uint8Array(key))).text).toBe(`secret ${i}`);
      await expect(openText(value, other)).rejects.toThrow();
    }
  });

  it('refuses a key of another length, sealing or opening', async () => {
    const key = base64url.decode(newDetailsKey().key);
    const sealed = await sealText(key, 'x', { kid: 'k' });
    await expect(sealText(key.slice(0, 16), 'x', { kid: 'k' })).rejects.toThrow();
    await expect(openText(sealed, key.slice(0, 16))).rejects.toThrow();
    await expect(openText(sealed, key.slice(0, 31))).rejects.toThrow();
  });
});
