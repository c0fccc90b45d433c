import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { systemMillis } from '../lib/clock';
import { workerBuilds } from './wrangler-config';

/**
 * `npm run deploy`: the deploy sequence a CI job runs (docs/deploy.md, "CI"). Migrations first (with
 * MIGRATION_DATABASE_URL, Neon's direct string, as DATABASE_URL), then the Workers' static assets, then every
 * Worker: the default one (QStash's callbacks, the scheduled jobs, the admin API where asked), then each group's
 * (`--only default` or `--only crm,stay` for some). Wrangler authenticates with CLOUDFLARE_API_TOKEN and
 * CLOUDFLARE_ACCOUNT_ID from the environment. `--print` shows the commands without running any.
 */
export type Step = { title: string; command: string; args: string[]; env?: Record<string, string> };

export function deploySteps(o: {
  only?: string[];
  release: string;
  adminApi: boolean;
  migrate: boolean;
  migrationUrl?: string;
}): Step[] {
  const steps: Step[] = [];
  if (o.migrate) {
    steps.push({
      title: 'migrate (MIGRATION_DATABASE_URL: the direct connection string)',
      command: 'npm',
      args: ['run', 'migrate'],
      env: o.migrationUrl ? { DATABASE_URL: o.migrationUrl } : undefined,
    });
  }
  steps.push({ title: 'bundle the Workers and the static assets', command: 'npm', args: ['run', 'build:worker'] });
  for (const worker of workerBuilds) {
    if (o.only && !o.only.includes(worker.name)) continue;
    const args = ['wrangler', 'deploy', '--var', `RELEASE:${o.release}`];
    if (worker.env) args.push('--env', worker.env);
    else if (o.adminApi) args.push('--var', 'ADMIN_API:on');
    steps.push({
      title: `deploy ${worker.name === 'default' ? 'the default Worker' : `the ${worker.name} Worker`}`,
      command: 'npx',
      args,
    });
  }
  return steps;
}

function release(given: string | undefined): string {
  if (given) return given;
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : String(systemMillis());
}

function main(): void {
  const { values } = parseArgs({
    options: {
      print: { type: 'boolean' },
      only: { type: 'string' },
      release: { type: 'string' },
      'admin-api': { type: 'boolean' },
      'skip-migrate': { type: 'boolean' },
    },
  });
  const migrationUrl = process.env.MIGRATION_DATABASE_URL;
  const steps = deploySteps({
    only: values.only?.split(',').map((name) => name.trim()),
    release: release(values.release),
    adminApi: Boolean(values['admin-api']),
    migrate: !values['skip-migrate'],
    migrationUrl,
  });

  if (values.print) {
    for (const step of steps)
      console.log(
        `# ${step.title}\n${step.env ? 'DATABASE_URL=$MIGRATION_DATABASE_URL ' : ''}${step.command} ${step.args.join(' ')}`,
      );
  } else {
    if (!values['skip-migrate'] && !migrationUrl) {
      console.error("Set MIGRATION_DATABASE_URL (Neon's direct connection string), or pass --skip-migrate.");
      process.exit(2);
    }
    if (!process.env.CLOUDFLARE_API_TOKEN)
      console.warn('CLOUDFLARE_API_TOKEN is not set: wrangler uses `wrangler login` instead.');
    for (const step of steps) {
      console.log(`\n== ${step.title}`);
      const run = spawnSync(step.command, step.args, { stdio: 'inherit', env: { ...process.env, ...step.env } });
      if (run.status !== 0) {
        console.error(`${step.title} failed (exit ${run.status}); later steps were not run.`);
        process.exit(run.status ?? 1);
      }
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
