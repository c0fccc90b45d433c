import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv, Caller } from './env';
import { isLocalOrigin } from './addresses';
import { setAnswerHeader } from './security-headers';
import { resolveCompany } from './tenancy';

/**
 * CORS of the visitor forms (POST /leads, POST /bookings). A page may call them when its origin is listed on
 * one of the company's active publishable keys (a localhost origin only on a development workspace). The
 * grant names the requesting origin, never `*`, with `Vary: Origin`, and allows only the headers a form sends.
 * Other origins get no grant, so the browser refuses to send or read. Server-key routes have no CORS at all.
 */
async function grantedOrigin(origin: string, c: Context<AppEnv>): Promise<string | null> {
  if (!origin || origin === 'null') return null;
  const company = await resolveCompany(c);
  if (isLocalOrigin(origin) && company.environment !== 'development') return null;
  const listed = await c.var.services.db
    .selectFrom('api_keys')
    .select('id')
    .where('company_id', '=', company.id)
    .where('kind', '=', 'publishable')
    .where('revoked_at', 'is', null)
    .where((eb) => eb(eb.val(origin), '=', eb.fn.any('origins')))
    .limit(1)
    .executeTakeFirst();
  return listed ? origin : null;
}

const exposed = 'Request-Id,Retry-After,RateLimit,RateLimit-Policy,Idempotent-Replayed,Api-Version';

export function formsCors(): MiddlewareHandler<AppEnv> {
  const preflight = cors({
    origin: grantedOrigin,
    allowMethods: ['POST'],
    allowHeaders: ['X-Api-Key', 'Content-Type', 'Idempotency-Key', 'Api-Version'],
    exposeHeaders: exposed.split(','),
    maxAge: 600,
  });
  // Only the forms' POST: the same path may also be a server-key read (GET /leads), which a page never gets.
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      return c.req.header('Access-Control-Request-Method')?.toUpperCase() === 'POST' ? preflight(c, next) : next();
    }
    if (c.req.method !== 'POST') return next();
    await next();
    const origin = c.req.header('Origin');
    setAnswerHeader(c, 'Vary', 'Origin', true);
    if (!origin) return;
    // A publishable key's origin was matched by the access check: no second lookup on the way to a 201. Other
    // answers (a refused key, a server key) are granted when the origin is listed on an active key, so a page
    // reads the problem.
    const caller = c.get('caller') as Caller | undefined;
    const granted = caller?.kind === 'publishable' ? caller.origin : await grantedOrigin(origin, c).catch(() => null);
    if (granted) {
      setAnswerHeader(c, 'Access-Control-Allow-Origin', granted);
      setAnswerHeader(c, 'Access-Control-Expose-Headers', exposed);
    }
  };
}
