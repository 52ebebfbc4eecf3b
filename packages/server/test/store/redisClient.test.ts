import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../src/store/redisClient.ts';
import { freePort } from '../support/childServer.ts';
import { eventually } from '../support/webhookReceiver.ts';

/**
 * The server's Redis client through Sentinel (PAYRAIL_REDIS_SENTINELS): it finds the master by asking a sentinel,
 * authenticates to both, and follows a failover to the promoted replica without a restart. A master, a replica
 * and a sentinel of the test's own (redis-server on free loopback ports), never the machine's shared Redis.
 */
const REDIS_SERVER = '/usr/bin/redis-server';
const hasRedis = existsSync(REDIS_SERVER);
if (!hasRedis && process.env.CI) throw new Error(`CI=1 but ${REDIS_SERVER} is missing`);

const PASSWORD = 'node-password';
const SENTINEL_PASSWORD = 'sentinel-password';

describe.skipIf(!hasRedis)('Redis through Sentinel', () => {
  let dir = '';
  const children: ChildProcess[] = [];
  const ports = { master: 0, replica: 0, sentinel: 0 };
  const clients: Redis[] = [];
  const direct = (port: number, password = PASSWORD) => {
    const client = new Redis({ host: '127.0.0.1', port, password, lazyConnect: true, maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };
  const start = (args: string[]) => {
    const child = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    children.push(child);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-sentinel-'));
    ports.master = await freePort();
    ports.replica = await freePort();
    ports.sentinel = await freePort();
    const node = (port: number) => [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      ...['--requirepass', PASSWORD, '--masterauth', PASSWORD],
    ];
    start(node(ports.master));
    start([...node(ports.replica), '--replicaof', '127.0.0.1', String(ports.master)]);
    await eventually(async () => {
      const info = await direct(ports.replica)
        .info('replication')
        .catch(() => '');
      return info.includes('master_link_status:up');
    }, 20_000);
    const conf = join(dir, 'sentinel.conf');
    await writeFile(
      conf,
      [
        `port ${ports.sentinel}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `requirepass ${SENTINEL_PASSWORD}`,
        `sentinel monitor mymaster 127.0.0.1 ${ports.master} 1`,
        `sentinel auth-pass mymaster ${PASSWORD}`,
        'sentinel down-after-milliseconds mymaster 2000',
        'sentinel failover-timeout mymaster 10000',
        '',
      ].join('\n'),
    );
    start([conf, '--sentinel']);
    // The sentinel has found the replica (through the master) and talks to it before a failover is asked of it.
    await eventually(
      async () => {
        const replicas = (await direct(ports.sentinel, SENTINEL_PASSWORD)
          .call('SENTINEL', 'REPLICAS', 'mymaster')
          .catch(() => [])) as string[][];
        return replicas.some((fields) => {
          const at = (key: string) => fields[fields.indexOf(key) + 1];
          return at('flags') === 'slave' && at('master-link-status') === 'ok';
        });
      },
      30_000,
      100,
    );
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('finds the master through the sentinel and follows it to the promoted replica', async () => {
    const redis = createRedis({
      redisSentinel: {
        sentinels: [{ host: '127.0.0.1', port: ports.sentinel }],
        name: 'mymaster',
        password: PASSWORD,
        sentinelPassword: SENTINEL_PASSWORD,
      },
    }) as Redis;
    clients.push(redis);
    redis.on('error', () => undefined);

    await redis.set('payrail-sentinel-test', 'before');
    expect(await direct(ports.master).get('payrail-sentinel-test')).toBe('before');

    // Asked again while the sentinel still finds no replica fit (NOGOODSLAVE until its view is recent enough).
    await eventually(
      () =>
        direct(ports.sentinel, SENTINEL_PASSWORD)
          .call('SENTINEL', 'FAILOVER', 'mymaster')
          .then(
            () => true,
            () => false,
          ),
      30_000,
      200,
    );
    await eventually(
      async () => {
        const addr = (await direct(ports.sentinel, SENTINEL_PASSWORD).call(
          'SENTINEL',
          'GET-MASTER-ADDR-BY-NAME',
          'mymaster',
        )) as string[];
        return addr[1] === String(ports.replica);
      },
      20_000,
      100,
    );

    // The same client, not restarted, now writes to the new master.
    await eventually(
      async () => {
        await redis.set('payrail-sentinel-test', 'after').catch(() => undefined);
        return (await direct(ports.replica).get('payrail-sentinel-test')) === 'after';
      },
      20_000,
      100,
    );
  }, 60_000);

  it('builds a single-node client from REDIS_URL, and none without Redis', () => {
    expect(createRedis({})).toBeNull();
    const single = createRedis({ redisUrl: `redis://:${PASSWORD}@127.0.0.1:${ports.master}` }) as Redis;
    clients.push(single);
    single.on('error', () => undefined);
    expect(single.options).toMatchObject({ host: '127.0.0.1', port: ports.master, password: PASSWORD });
  });
});
