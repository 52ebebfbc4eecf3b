import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

/**
 * In CI the PostgreSQL and Redis tests must run: this file fails loudly when CI=1 and either URL is missing
 * or unreachable, instead of letting those tests be skipped.
 */
describe.runIf(process.env.CI)('CI services', () => {
  it('has TEST_DATABASE_URL pointing at a reachable PostgreSQL', async () => {
    expect(process.env.TEST_DATABASE_URL, 'TEST_DATABASE_URL must be set in CI').toBeTruthy();
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query('SELECT 1 AS one');
    await client.end();
    expect(rows[0].one).toBe(1);
  });

  it('has TEST_REDIS_URL pointing at a reachable Redis', async () => {
    expect(process.env.TEST_REDIS_URL, 'TEST_REDIS_URL must be set in CI').toBeTruthy();
    const redis = new Redis(process.env.TEST_REDIS_URL as string, { maxRetriesPerRequest: 1 });
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
  });
});
