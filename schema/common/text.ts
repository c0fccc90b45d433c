import { z } from '@hono/zod-openapi';

/**
 * Text as PostgreSQL can keep it exactly as sent: well-formed Unicode (a lone surrogate, which JSON's `"\ud800"`
 * escape gives, has no UTF-8 form: a text column would keep U+FFFD instead and a jsonb one refuses it) and no U+0000
 * (neither text nor jsonb takes it). In a `u` regular expression a surrogate pair is one code point, so `\p{Cs}`
 * matches only a surrogate standing alone.
 */
const loneSurrogate = /\p{Cs}/u;

/** Whether a text can be stored as it is: well-formed Unicode without U+0000. */
export const storableText = (value: string) => !value.includes('\u0000') && !loneSurrogate.test(value);

/**
 * The one text type of request bodies (every free text, localised text and reference a client sends): a string that
 * is well-formed Unicode without U+0000, else 400 `invalid_text` at the field. Chain it as `z.string()`.
 */
export const text = () =>
  z.string().refine(storableText, {
    message: 'Text must be well-formed Unicode (no lone surrogate) without U+0000.',
    params: { code: 'invalid_text' },
  });
