import type { Context } from 'hono';
import type { AppEnv } from './env';

/** Where the API answers each problem type's page (lib/problem-pages.ts): /problems and /problems/{code}. */
export const problemPagesPath = '/problems';

/**
 * The base of every problem's `type`, ending with a slash: the deployment's PROBLEM_TYPE_BASE_URL when set, else
 * /problems/ on the host the request was sent to (the default Worker and the Node server answer it there; a group
 * Worker's host routes /problems to the default Worker, docs/deploy.md, section 6).
 */
export function problemTypeBaseFor(c: Context<AppEnv>): string {
  const configured = (c.var.services as { config?: { PROBLEM_TYPE_BASE_URL?: string } } | undefined)?.config
    ?.PROBLEM_TYPE_BASE_URL;
  if (configured) return configured;
  return `${new URL(c.req.url).origin}${problemPagesPath}/`;
}
