import { z } from 'zod';

/** Lead-details key ids (lib/crypto-jwe.ts): short, URL-safe, readable in a JWE header. */
const kidPattern = /^[A-Za-z0-9_.-]{1,64}$/;
/** A 32-byte key in base64url without padding. */
const keyPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Every setting says the form it needs (`.describe`): a bad one is refused at start with one line naming it and that
 * form (issue 32, defect 9), never a ZodError and its stack.
 */
const whole = (min: number, max: number | undefined, fallback: number, unit: string) =>
  z.coerce
    .number()
    .int()
    .min(min)
    .max(max ?? Number.MAX_SAFE_INTEGER)
    .default(fallback)
    .describe(`a whole number of ${unit}, ${max === undefined ? `${min} or more` : `from ${min} to ${max}`}`);
const int = (fallback: number, unit = 'requests per minute') => whole(1, undefined, fallback, unit);
const megabytes = (fallback: number) =>
  z.coerce.number().min(0).max(1024).default(fallback).describe('a number of megabytes from 0 to 1024 (0 turns it off)');
const url = (example = 'https://…') => z.string().url().describe(`an absolute URL (${example})`);
const anything = (form: string) => z.string().describe(form);

/** DETAILS_KEYS: a JSON object of key id → base64url 32-byte key (a string in the environment). */
const detailsKeys = z
  .preprocess(
    (value) => {
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    },
    z.record(z.string().regex(kidPattern), z.string().regex(keyPattern, 'A 32-byte key in base64url.')),
  )
  .describe(
    'a JSON object of key ids (1 to 64 of A-Z a-z 0-9 _ . -) to 32-byte keys in base64url (43 characters), e.g. {"k1":"<43 characters>"}',
  );

const configSchema = z.object({
  // Requests per minute. Anonymous catalogue reads are limited per client address, key requests per key.
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: int(300),
  RATE_LIMIT_SERVER_KEY_PER_MINUTE: int(1200),
  RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: int(60),
  MAX_BODY_BYTES: int(64 * 1024, 'bytes'),
  MEDIA_BASE_URL: url('https://media.example.com').default('https://media.property-api.dev'),
  UPSTASH_REDIS_REST_URL: url('https://<name>.upstash.io').optional(),
  UPSTASH_REDIS_REST_TOKEN: anything('the database’s REST token').optional(),
  // Catalogue answers may be cached this long by browsers (max-age) and edge caches (s-maxage).
  CATALOGUE_MAX_AGE_SECONDS: whole(0, undefined, 60, 'seconds'),
  CATALOGUE_EDGE_MAX_AGE_SECONDS: whole(0, undefined, 300, 'seconds'),
  // Rendered catalogue answers kept in memory per process (or Worker isolate), keyed by the catalogue
  // version: a repeated page costs the company lookup only. 0 turns it off.
  CATALOGUE_RESPONSE_CACHE_MB: megabytes(32),
  // Listings' stored forms kept in memory per process (or Worker isolate) by revision, so a page built after a
  // change selects the revisions of its rows, not their forms (functions/catalogue/renders.ts). 0 turns it off.
  CATALOGUE_FORMS_CACHE_MB: megabytes(16),
  // Part of every catalogue ETag: set it per deploy (e.g. the commit) so a release that changes how answers
  // look is never revalidated against an older one. The Node server uses its start time when unset.
  RELEASE: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .default('1')
    .describe('1 to 64 of A-Z a-z 0-9 . _ - (e.g. the commit)'),
  // Webhooks. Signing secrets are stored encrypted (AES-256-GCM) under this key: base64 of 32 bytes. The Node
  // server generates one into DATA_DIR on first start; on Workers it is a secret (`wrangler secret put`).
  WEBHOOK_SECRET_KEY: z
    .string()
    .refine((v) => base64Bytes(v) === 32, 'Base64 of exactly 32 random bytes (openssl rand -base64 32).')
    .describe('base64 of exactly 32 random bytes (openssl rand -base64 32)')
    .optional(),
  // How long a subscriber may take to answer (the contract says 15 s; tests shorten it).
  WEBHOOK_TIMEOUT_MS: whole(100, 60_000, 15_000, 'milliseconds'),
  // Node: how often the in-process dispatcher looks for due deliveries (it is also woken after each write).
  WEBHOOK_DISPATCH_INTERVAL_MS: whole(50, 60_000, 1000, 'milliseconds'),
  // Node: how often the scheduler runs (outbox sweep, rebuild hooks, …). Workers use Cron Triggers instead.
  SCHEDULER_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3600).default(10).describe('a number of seconds from 0.05 to 3600'),
  // Changes to published listings within this window are coalesced into one static-site rebuild.
  REBUILD_HOOK_DELAY_SECONDS: whole(0, 3600, 30, 'seconds'),
  // QStash (production fan-out). With QSTASH_TOKEN set, deliveries go through QStash; otherwise in-process.
  QSTASH_TOKEN: anything('the QStash token').optional(),
  QSTASH_URL: url('https://qstash.upstash.io').default('https://qstash.upstash.io'),
  QSTASH_CURRENT_SIGNING_KEY: anything('QStash’s current signing key').optional(),
  QSTASH_NEXT_SIGNING_KEY: anything('QStash’s next signing key').optional(),
  // Retries QStash makes after the first attempt: 9 follows the whole schedule; lower it to the plan's maximum
  // (the sweep republishes what QStash gave up on, and the schedule goes on).
  QSTASH_RETRIES: whole(0, 20, 9, 'retries'),
  // The public origin QStash calls back (this deployment's /internal/v1/deliveries/{id}), e.g. https://api.example.com.
  INTERNAL_BASE_URL: url('https://api.example.com')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  // Lead details are encrypted at rest with these keys (lib/crypto-jwe.ts); DETAILS_KEY_ID names the one new
  // details use. Without them a lead with details is refused (503 encryption_unavailable).
  DETAILS_KEYS: detailsKeys.optional(),
  DETAILS_KEY_ID: z.string().regex(kidPattern).describe('a key id of DETAILS_KEYS (1 to 64 of A-Z a-z 0-9 _ . -)').optional(),
  // Availability answers kept in memory at most this long (less when a hold in them lapses sooner); keyed by
  // the home's calendar version, so a booking change is seen at once. 0 turns it off.
  AVAILABILITY_CACHE_SECONDS: whole(0, 3600, 30, 'seconds'),
  // Visitor forms' spam check (Cloudflare Turnstile). Tests point it at a verifier on loopback.
  TURNSTILE_SITEVERIFY_URL: url().default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  SPAM_CHECK_TIMEOUT_MS: whole(100, 30_000, 5000, 'milliseconds'),
  // Payment providers' API origins (issue 34): the platform's configuration, never a company's, so no company can point
  // the platform at an address. Tests point them at loopback stand-ins.
  STRIPE_API_BASE: url('https://api.stripe.com')
    .transform((u) => u.replace(/\/+$/, ''))
    .default('https://api.stripe.com'),
  // N-Genius: the live gateway of the UAE (docs/formats/ngenius.md); its sandbox is
  // https://api-gateway.sandbox.ngenius-payments.com, other regions have their own origin.
  NGENIUS_API_BASE: url('https://api-gateway.ngenius-payments.com')
    .transform((u) => u.replace(/\/+$/, ''))
    .default('https://api-gateway.ngenius-payments.com'),
  // How long one call to a payment provider may take before it counts as unavailable (503 provider_unavailable, the
  // provider's webhook retried, the poll job tries again later): at most 15 s, so no request is held open longer.
  PAYMENT_PROVIDER_TIMEOUT_MS: whole(50, 15_000, 15_000, 'milliseconds'),
  // Where each problem's `type` points: this URL followed by the code (e.g. https://docs.example.com/problems/ gives
  // https://docs.example.com/problems/not_found). Unset: /problems/<code> on the host the request was sent to, which
  // this API answers itself (lib/problem-pages.ts). A slash is added at the end when missing.
  PROBLEM_TYPE_BASE_URL: url('https://docs.example.com/problems/')
    .transform((u) => (u.endsWith('/') ? u : `${u}/`))
    .optional(),
});

function base64Bytes(text: string): number {
  try {
    return atob(text).length;
  } catch {
    return -1;
  }
}

export type Config = z.infer<typeof configSchema>;

/** Settings whose value is never repeated in a message (a log keeps what it is given). */
export const secretSettings = new Set([
  'DETAILS_KEYS',
  'WEBHOOK_SECRET_KEY',
  'UPSTASH_REDIS_REST_TOKEN',
  'QSTASH_TOKEN',
  'QSTASH_CURRENT_SIGNING_KEY',
  'QSTASH_NEXT_SIGNING_KEY',
  'ADMIN_TOKEN',
  'DATABASE_URL',
]);

/** One line for one setting: its name, the form it needs and what it got (a secret's length only). */
export function settingLine(name: string, form: string, value: unknown): string {
  const got =
    value === undefined || value === ''
      ? 'nothing'
      : secretSettings.has(name)
        ? `a value of ${String(value).length} characters (not shown: a secret)`
        : JSON.stringify(String(value).length > 80 ? `${String(value).slice(0, 80)}…` : String(value));
  return `${name}: expected ${form}, got ${got}`;
}

/** Bad settings, one line each, as a start prints them (lib/node/settings.ts adds the Node server's own). */
export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'SettingsError';
  }
}

const shape = configSchema.shape as Record<string, z.ZodType>;

/** The form a setting's schema describes, under its default, optional or transform wrappers. */
function formOf(schema: z.ZodType | undefined): string {
  for (let at = schema; at; ) {
    if (at.description) return at.description;
    const def = at._zod.def as { innerType?: z.ZodType; in?: z.ZodType };
    at = def.innerType ?? def.in;
  }
  return 'another value';
}

/** The settings of the environment this schema reads: set and not empty. */
function picked(env: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') values[key] = value;
  }
  return values;
}

/** Every bad setting of the environment, one line each (none: the configuration loads). */
export function configProblems(env: Record<string, unknown>): string[] {
  const values = picked(env);
  const parsed = configSchema.safeParse(values);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
    return names.map((name) => settingLine(name, formOf(shape[name]), values[name]));
  }
  const config = parsed.data;
  const problems: string[] = [];
  if (config.QSTASH_TOKEN && !config.INTERNAL_BASE_URL) {
    problems.push(
      settingLine(
        'INTERNAL_BASE_URL',
        'the public origin QStash calls back when QSTASH_TOKEN is set (https://api.example.com)',
        undefined,
      ),
    );
  }
  const kids = Object.keys(config.DETAILS_KEYS ?? {});
  if (config.DETAILS_KEYS !== undefined && config.DETAILS_KEY_ID === undefined) {
    problems.push(
      settingLine(
        'DETAILS_KEY_ID',
        `the key id of DETAILS_KEYS new details use (${kids.join(', ')}): set both or neither`,
        undefined,
      ),
    );
  } else if (config.DETAILS_KEY_ID !== undefined && config.DETAILS_KEYS === undefined) {
    problems.push(
      settingLine('DETAILS_KEYS', `${formOf(shape.DETAILS_KEYS)} holding DETAILS_KEY_ID: set both or neither`, undefined),
    );
  } else if (config.DETAILS_KEY_ID !== undefined && !kids.includes(config.DETAILS_KEY_ID)) {
    problems.push(
      settingLine('DETAILS_KEY_ID', `one of the key ids of DETAILS_KEYS (${kids.join(', ')})`, config.DETAILS_KEY_ID),
    );
  }
  return problems;
}

/** Configuration comes from the environment (process.env on Node, vars and secrets on Workers); bad settings throw SettingsError. */
export function loadConfig(env: Record<string, unknown>): Config {
  const problems = configProblems(env);
  if (problems.length > 0) throw new SettingsError(problems);
  return configSchema.parse(picked(env));
}

/** Every setting this schema reads, with the form it needs (the start's messages; docs/node-server.md lists them). */
export const configForms: Record<string, string> = Object.fromEntries(
  Object.keys(shape).map((name) => [name, formOf(shape[name])]),
);
