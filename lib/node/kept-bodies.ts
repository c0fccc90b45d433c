import type { Context } from 'hono';
import { chooseEncoding, type Compressor, type EncodedBody } from '../encodings';
import { nodeCompressor } from './compress';
import { versionVary } from '../versions';

/**
 * A body kept in memory for the process's life (the reference page's script, an OpenAPI document), sent in the variant
 * the request's Accept-Encoding prefers. The variants are made once, on first use, by the runtime's compressor (Node:
 * gzip and brotli); without one (Workers, where Cloudflare compresses at the edge) the body goes as it is.
 */
class KeptBody {
  #encoded: Promise<EncodedBody> | undefined;
  readonly #make: () => Promise<string> | string;

  constructor(make: () => Promise<string> | string) {
    this.#make = make;
  }

  /** The body and its variants (made once; a failed compression leaves it identity only). */
  encoded(compress: Compressor | undefined): Promise<EncodedBody> {
    this.#encoded ??= (async () => {
      const identity = new TextEncoder().encode(await this.#make());
      const variants = compress ? await compress(identity).catch(() => ({})) : {};
      return { identity, ...variants };
    })();
    return this.#encoded;
  }

  /** The answer: the chosen variant with Content-Encoding, `Vary: Accept-Encoding` whenever variants exist. */
  async answer(
    c: Context,
    compress: Compressor | undefined,
    headers: Record<string, string>,
    status: 200 = 200,
  ): Promise<Response> {
    const body = await this.encoded(compress);
    const encoding = chooseEncoding(c, body);
    const all: Record<string, string> = { ...headers };
    if (body.br || body.gzip) all.Vary = `Accept-Encoding, ${versionVary}`;
    if (encoding) all['Content-Encoding'] = encoding;
    return c.body((encoding ? body[encoding] : body.identity) as Uint8Array<ArrayBuffer>, status, all);
  }
}

const kept = new WeakMap<object, KeptBody>();

/**
 * Services.answerKept on Node: a large body made once per `key` (an object of its owner's: the reference page's
 * script, or one composed app's OpenAPI document), kept with its gzip and brotli variants and sent as the request's
 * Accept-Encoding asks. Workers have none (Cloudflare compresses at the edge), so none of this is bundled into a Worker.
 */
export function answerKept(
  c: Context,
  key: object,
  make: () => Promise<string> | string,
  headers: Record<string, string>,
): Promise<Response> {
  let body = kept.get(key);
  if (!body) {
    body = new KeptBody(make);
    kept.set(key, body);
  }
  return body.answer(c, nodeCompressor, headers);
}
