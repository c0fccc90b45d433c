import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv, Services, ServicesProvider } from './env';

/**
 * A request's life around its handler: its services provided and closed, and the work after the answer (the outbox
 * relay's hand-off, a streamed body) kept alive on Workers or tracked on Node, so that shutdown and tests can wait.
 */

/** Set once Hono said this process's requests carry no execution context (Node): it never gains one. */
let withoutExecutionContext = false;

export function servicesMiddleware(provide: ServicesProvider): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const provided = provide(c);
    const { services, done } = provided instanceof Promise ? await provided : provided;
    c.set('services', services);
    try {
      await next();
    } finally {
      const after = afterResponse(c, services, done);
      if (after) {
        // On Workers the runtime keeps it alive after the response; on Node (no execution context) it runs in
        // the background, tracked so that shutdown and tests can wait for it: the answer never waits on it.
        // Hono's getter throws where there is no context; a process that has seen it throw once (Node) stops asking.
        if (withoutExecutionContext) track(after);
        else {
          try {
            c.executionCtx.waitUntil(after);
          } catch {
            withoutExecutionContext = true;
            track(after);
          }
        }
      }
    }
  };
}

const running = new Set<Promise<void>>();

function track(work: Promise<void>): void {
  running.add(work);
  void work.finally(() => running.delete(work));
}

/**
 * Resolves once every after-response task started on Node so far (and any they started meanwhile) has
 * finished: the server awaits it before closing the database, tests before looking at what a hand-off did.
 */
export async function afterResponsesSettled(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

/**
 * After a successful write, the outbox relay: hand the webhook deliveries its transaction created to their
 * transport (publish to QStash, or wake the in-process dispatcher). A failure here loses nothing: the
 * scheduled sweep finds the same deliveries. Then the request's services are closed.
 */
function afterResponse(c: Context<AppEnv>, services: Services, done?: () => Promise<void>): Promise<void> | undefined {
  const wrote = !readsOnly(c.req.method) && c.res.status < 400;
  if (!wrote && !done) return undefined;
  const streaming = c.get('streaming') as Promise<unknown> | undefined;
  return (async () => {
    // A streamed body reads the database as it is written: the services are closed once it is done.
    if (streaming) await streaming.catch(() => {});
    if (wrote) {
      await services.webhooks.transport
        .handOff(services.db, services.webhooks)
        .catch((error: unknown) => console.error('handing webhook deliveries over failed (the sweep will):', error));
    }
    await done?.().catch((error: unknown) => console.error('closing services failed:', error));
  })();
}

/**
 * For an answer whose body is written after the handler returned (a feed streamed from the database): the request's
 * services (a Worker's per-request pool) stay open until `work` settles, and a Worker keeps running until then.
 */
export function keepServicesUntil(c: Context<AppEnv>, work: Promise<unknown>): void {
  c.set('streaming', work);
}

/** GET, HEAD and OPTIONS: requests that change nothing and carry no body. */
export function readsOnly(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}
