import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { supportedCompatibilityDate } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatibilityDate, type Layout, wranglerConfig, wranglerFile, workerBuilds } from '../../bin/wrangler-config';
import { deploySteps } from '../../bin/deploy';
import { routeGroups } from '../../functions/app';
import { scheduledJobs } from '../../functions/jobs';

/**
 * The generated wrangler.jsonc as wrangler itself reads it (its own parser and validation, per environment): how many
 * Cron Triggers each layout uses (Workers Free allows 5 per account), Workers Logs on every Worker, the placement hint,
 * the compatibility date; and `wrangler deploy --dry-run` in a checkout with nothing built, as a fresh clone is.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrangler-layout-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function readLayout(layout: Layout, placement?: string) {
  const file = join(dir, `${layout}-${placement ?? 'unplaced'}.jsonc`);
  await writeFile(file, wranglerConfig(layout, placement));
  return workerBuilds.map((build) => ({
    build,
    config: unstable_readConfig({ config: file, env: build.env || undefined }, { hideWarnings: true }),
  }));
}

const cronCount = (workers: Awaited<ReturnType<typeof readLayout>>) =>
  workers.reduce((sum, { config }) => sum + (config.triggers.crons ?? []).length, 0);

describe('wrangler.jsonc layouts', () => {
  it('one-cron (the default): one Cron Trigger for the whole deployment, on the default Worker, which runs every job', async () => {
    expect(wranglerConfig()).toBe(wranglerConfig('one-cron'));
    const workers = await readLayout('one-cron');
    expect(cronCount(workers)).toBe(1);
    const [first, ...groups] = workers;
    expect(first!.config.name).toBe('property-api');
    expect(first!.config.triggers.crons).toEqual(['* * * * *']);
    for (const { config } of groups) expect(config.triggers.crons).toEqual([]);
    // The default Worker's scheduled handler runs the platform's jobs and every group's.
    for (const group of routeGroups) for (const job of group.jobs ?? []) expect(scheduledJobs).toContain(job);
  });

  it('per-group: also a trigger on each group Worker with jobs of its own (more than the Free plan allows)', async () => {
    const workers = await readLayout('per-group');
    const withJobs = routeGroups.filter((group) => (group.jobs ?? []).length > 0).map((group) => `property-api-${group.name}`);
    expect(withJobs.length).toBeGreaterThan(0);
    for (const { config } of workers.slice(1)) {
      expect(config.triggers.crons).toEqual(withJobs.includes(config.name ?? '') ? ['* * * * *'] : []);
    }
    expect(cronCount(workers)).toBe(1 + withJobs.length);
    expect(cronCount(workers)).toBeGreaterThan(5);
  });

  it('turns on Workers Logs in every Worker (an environment does not inherit it)', async () => {
    for (const { build, config } of await readLayout('one-cron')) {
      expect(config.observability, build.name).toMatchObject({ enabled: true, head_sampling_rate: 1 });
    }
  });

  it('places no Worker by default; --placement places every Worker near the named region, or smartly', async () => {
    for (const { config } of await readLayout('one-cron')) expect(config.placement).toBeUndefined();
    for (const { build, config } of await readLayout('one-cron', 'aws:eu-central-1')) {
      expect(config.placement, build.name).toMatchObject({ region: 'aws:eu-central-1' });
    }
    for (const { config } of await readLayout('one-cron', 'smart')) expect(config.placement).toEqual({ mode: 'smart' });
    expect(() => wranglerConfig('one-cron', 'eu-central-1')).toThrow(/--placement/);
  });

  it("keeps every Worker's in-memory caches within a quarter of an isolate's 128 MB (docs/deploy.md)", async () => {
    for (const { build, config } of await readLayout('one-cron')) {
      const vars = config.vars as Record<string, string>;
      const megabytes = Object.entries(vars)
        .filter(([name]) => /_CACHE_MB$/.test(name))
        .reduce((sum, [, value]) => sum + Number(value), 0);
      expect(megabytes, build.name).toBeGreaterThan(0);
      expect(megabytes, build.name).toBeLessThanOrEqual(128 / 4);
    }
  });

  it('asks for the newest compatibility date the installed workerd runs, with nodejs_compat and global_fetch_strictly_public', async () => {
    const config = (await readLayout('one-cron'))[0]?.config;
    expect(config?.compatibility_date).toBe(compatibilityDate);
    // wrangler dev, test/workerd and Cloudflare run the same date: the newest Miniflare supports (bump it with wrangler).
    expect(compatibilityDate).toBe(supportedCompatibilityDate);
    expect(config?.compatibility_flags).toEqual(['nodejs_compat', 'global_fetch_strictly_public']);
  });
});

// Bundling once takes seconds and uses no database: once, in the PGlite pass (as test/platform/workers.test.ts).
describe.skipIf(Boolean(process.env.DATABASE_URL))('a checkout with nothing built (a fresh clone)', () => {
  it('`wrangler deploy --dry-run` builds the static assets itself (wrangler.jsonc build.command) and bundles', async () => {
    const root = resolve('.');
    const checkout = join(dir, 'checkout');
    await mkdir(checkout);
    // The repository's files as a clone has them, without dist/ (built output is never committed). bin/ is copied: a
    // script run through a symlink would not know itself as the main module.
    for (const entry of ['functions', 'lib', 'schema', 'node_modules', 'package.json', 'tsconfig.json']) {
      await symlink(join(root, entry), join(checkout, entry));
    }
    await cp(join(root, 'bin'), join(checkout, 'bin'), { recursive: true });
    await writeFile(join(checkout, wranglerFile), await readFile(join(root, wranglerFile)));
    const out = join(dir, 'out');
    const { stdout } = await promisify(execFile)(
      join(root, 'node_modules', '.bin', 'wrangler'),
      ['deploy', '--dry-run', '--env=', '--outdir', out],
      { cwd: checkout, env: { ...process.env, WRANGLER_SEND_METRICS: 'false' }, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout).toContain('--dry-run: exiting now.');
    expect((await stat(join(checkout, 'dist', 'assets', 'api', 'v1', 'docs', 'api-reference.js'))).size).toBeGreaterThan(0);
    expect((await stat(join(out, 'worker.js'))).size).toBeGreaterThan(0);
  }, 180_000);
});

describe('the deploy sequence (bin/deploy.ts)', () => {
  it('migrates first, bundles, then deploys the default Worker and each group Worker', () => {
    const steps = deploySteps({ release: 'abc123', adminApi: true, migrate: true, migrationUrl: 'postgresql://direct' });
    expect(steps[0]).toMatchObject({ command: 'npm', args: ['run', 'migrate'], env: { DATABASE_URL: 'postgresql://direct' } });
    expect(steps[1]).toMatchObject({ command: 'npm', args: ['run', 'build:worker'] });
    const deploys = steps.slice(2);
    expect(deploys.map((step) => step.args.join(' '))).toEqual(
      workerBuilds.map((build) =>
        build.env
          ? `wrangler deploy --var RELEASE:abc123 --env ${build.env}`
          : 'wrangler deploy --var RELEASE:abc123 --var ADMIN_API:on',
      ),
    );
    const some = deploySteps({ release: 'r', adminApi: false, migrate: false, only: ['default', 'crm'] });
    expect(some.map((step) => step.args.join(' '))).toEqual([
      'run build:worker',
      'wrangler deploy --var RELEASE:r',
      'wrangler deploy --var RELEASE:r --env crm',
    ]);
  });
});
