import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unstable_readConfig } from 'wrangler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, wranglerToml, workerBuilds } from '../../bin/wrangler-config';
import { deploySteps } from '../../bin/deploy';
import { routeGroups } from '../../functions/app';
import { scheduledJobs } from '../../functions/jobs';

/**
 * The generated wrangler.toml as wrangler itself reads it (its own parser and validation, per environment): how many
 * Cron Triggers each layout uses (Workers Free allows 5 per account), and Workers Logs on every Worker.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrangler-layout-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function readLayout(layout: Layout) {
  const file = join(dir, `${layout}.toml`);
  await writeFile(file, wranglerToml(layout));
  return workerBuilds.map((build) => ({
    build,
    config: unstable_readConfig({ config: file, env: build.env || undefined }, { hideWarnings: true }),
  }));
}

const cronCount = (workers: Awaited<ReturnType<typeof readLayout>>) =>
  workers.reduce((sum, { config }) => sum + (config.triggers.crons ?? []).length, 0);

describe('wrangler.toml layouts', () => {
  it('one-cron (the default): one Cron Trigger for the whole deployment, on the default Worker, which runs every job', async () => {
    expect(wranglerToml()).toBe(wranglerToml('one-cron'));
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
