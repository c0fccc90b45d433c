import { parse } from 'pg-connection-string';
import { describe, expect, it } from 'vitest';
import { explicitSslMode } from '../../lib/db/postgres';

/**
 * `npm run migrate` with a Neon string (`?sslmode=require`) printed pg's SECURITY WARNING: pg 8 reads `require` as
 * `verify-full`. The pool is given the mode pg uses, by name: the same checks, no warning (docs/deploy.md).
 */
describe('sslmode in DATABASE_URL', () => {
  it.each(['prefer', 'require', 'verify-ca'])('spells sslmode=%s as the verify-full pg 8 applies, without a warning', (mode) => {
    const given = `postgresql://user:p%40ss@ep-1.eu-central-1.aws.neon.tech/neondb?sslmode=${mode}&channel_binding=require`;
    const used = explicitSslMode(given);
    expect(new URL(used).searchParams.get('sslmode')).toBe('verify-full');
    expect(new URL(used).searchParams.get('channel_binding')).toBe('require');
    const warnings: string[] = [];
    const listen = (warning: Error) => warnings.push(warning.message);
    process.on('warning', listen);
    try {
      const config = parse(used);
      expect(config.password).toBe('p@ss');
      expect(config.ssl).toBeTruthy();
    } finally {
      process.off('warning', listen);
    }
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(warnings.filter((w) => w.includes('SECURITY WARNING'))).toEqual([]);
        resolve();
      }),
    );
  });

  it.each([
    'postgresql://postgres@127.0.0.1:5432/db',
    'postgresql://u@h/db?sslmode=disable',
    'postgresql://u@h/db?sslmode=verify-full',
    'postgresql://u@h/db?sslmode=require&uselibpqcompat=true',
  ])('leaves %s as written', (given) => {
    expect(explicitSslMode(given)).toBe(given);
  });

  it('is what pg warns about when the mode is left as require (so the check can fail)', async () => {
    const warnings: string[] = [];
    const listen = (warning: Error) => warnings.push(warning.message);
    process.on('warning', listen);
    try {
      parse('postgresql://u@h/db?sslmode=require');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings.some((w) => w.includes('SECURITY WARNING'))).toBe(true);
  });
});
