const encoder = new TextEncoder();
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Node's own synchronous hashes, once loaded: SHA-256 of a text, HMAC-SHA256 of bytes. */
type NodeHashes = {
  digest: (text: string) => Uint8Array;
  hmac: (key: string | Uint8Array, data: Uint8Array) => Uint8Array;
};
/** Node's hashes, once loaded (null elsewhere); undefined until the first use. */
let nodeHashes: NodeHashes | null | undefined;

async function loadNodeHashes(): Promise<NodeHashes | null> {
  const onWorkers = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
  if (onWorkers || (globalThis as { process?: { release?: { name?: string } } }).process?.release?.name !== 'node') {
    return null;
  }
  try {
    const { createHash, createHmac } = await import('node:crypto');
    return {
      digest: (text) => new Uint8Array(createHash('sha256').update(text).digest()),
      hmac: (key, data) => new Uint8Array(createHmac('sha256', key).update(data).digest()),
    };
  } catch {
    return null;
  }
}

async function hashes(): Promise<NodeHashes | null> {
  if (nodeHashes === undefined) nodeHashes = await loadNodeHashes();
  return nodeHashes;
}

/**
 * SHA-256 of a text: Node's synchronous hash on Node (a key is hashed on every keyed request; Web Crypto's digest
 * there is a job handed to another thread, several times the CPU), Web Crypto elsewhere. The same digest either way.
 */
export async function sha256(text: string): Promise<Uint8Array> {
  const node = await hashes();
  if (node) return node.digest(text);
  return new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
}

/** Random bytes are drawn from the platform CSPRNG in blocks: one call per block, not per token or reference. */
const poolSize = 4096;
let pool = new Uint8Array(0);
let drawn = 0;

/** `n` bytes from the platform CSPRNG, each given out once (a block is replaced, never rewritten, when used up). */
export function randomBytes(n: number): Uint8Array {
  if (n > poolSize) return crypto.getRandomValues(new Uint8Array(n));
  if (drawn + n > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(poolSize));
    drawn = 0;
  }
  const bytes = pool.subarray(drawn, drawn + n);
  drawn += n;
  return bytes;
}

/** Compares two digests without leaking where they differ. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** Random base62 text from the platform CSPRNG (rejection sampling keeps it unbiased). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/**
 * HMAC-SHA256 of `data` with `key`: Node's synchronous HMAC on Node (every inbound delivery and signed webhook is
 * checked with one; Web Crypto there imports the key and hands the signature to another thread), Web Crypto
 * elsewhere. The same bytes either way.
 */
export async function hmacSha256(key: string | Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const node = await hashes();
  if (node) return node.hmac(key, data);
  const raw = typeof key === 'string' ? encoder.encode(key) : key;
  const imported = await crypto.subtle.importKey(
    'raw',
    raw as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, data as Uint8Array<ArrayBuffer>));
}

/** The bytes of a hexadecimal text (either case); undefined when it is not one. */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(text)) return undefined;
  const bytes = new Uint8Array(text.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Whether `signature` (hex, as Meta's `X-Hub-Signature-256` after `sha256=` and Property Finder's `X-Signature` send
 * it) is the HMAC-SHA256 of `body` with `secret`, compared in constant time.
 */
export async function hexHmacMatches(secret: string, body: Uint8Array, signature: string): Promise<boolean> {
  const given = fromHex(signature.trim());
  return given !== undefined && timingSafeEqual(given, await hmacSha256(secret, body));
}
