import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { SETTING_VARIABLES } from '../../src/configSchema.ts';

/**
 * The install files (docs/operator/install.md) cannot be run here (no Docker, no systemd in CI), so what can be
 * checked is: the files they copy exist, they start the server with the launcher `npm start` uses, and every setting
 * they pass is one the server reads (a misspelt name would be silently ignored).
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const SETTINGS = new Set(SETTING_VARIABLES.map((v) => v.name));
const LAUNCHER = 'packages/server/bin/payrail-server';

describe('install files (issue 33)', () => {
  it('npm start runs the launcher the Dockerfile and the systemd unit run', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toContain(LAUNCHER);
    expect(existsSync(join(ROOT, LAUNCHER))).toBe(true);
  });

  it('the Dockerfile copies files that exist, on the Node the project supports, and starts the launcher', () => {
    const docker = read('Dockerfile');
    const froms = [...docker.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(/^node:20-/);
    const copies = [...docker.matchAll(/^COPY (?!--from)(.+)$/gm)].map((m) => (m[1] as string).trim().split(/\s+/));
    expect(copies.length).toBeGreaterThan(0);
    for (const parts of copies) {
      for (const source of parts.slice(0, -1)) expect(existsSync(join(ROOT, source)), `COPY ${source}`).toBe(true);
    }
    expect(docker).toMatch(new RegExp(`^CMD \\["sh", "${LAUNCHER}"\\]$`, 'm'));
    const env = [...docker.matchAll(/^ENV (.+)$/gm)].flatMap((m) => (m[1] as string).split(/\s+/));
    for (const pair of env) {
      const name = pair.split('=')[0] as string;
      if (name !== 'NODE_ENV') expect(SETTINGS.has(name), `ENV ${name}`).toBe(true);
    }
    const ignored = read('.dockerignore').split('\n');
    for (const path of ['.git', 'node_modules', 'data', '.env']) expect(ignored).toContain(path);
  });

  it('the compose file runs two instances of the image on PostgreSQL and Redis, with real settings', () => {
    const compose = parseYaml(read('deploy/compose.yml'), { merge: true }) as {
      services: Record<string, { build?: string; environment?: Record<string, string>; image?: string }>;
    };
    const instances = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(instances.map(([name]) => name)).toEqual(['payrail-1', 'payrail-2']);
    for (const [, service] of instances) {
      expect(existsSync(join(ROOT, 'deploy', service.build as string, 'Dockerfile'))).toBe(true);
      const names = Object.keys(service.environment ?? {});
      expect(names).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'PAYRAIL_ADMIN_TOKEN']));
      for (const name of names) expect(SETTINGS.has(name), `environment ${name}`).toBe(true);
    }
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    expect(compose.services.redis?.image).toMatch(/^redis:/);
  });

  it('the systemd unit starts the launcher with the sample settings and gives the drain its time', () => {
    const unit = read('deploy/systemd/payrail.service');
    expect(unit).toMatch(new RegExp(`^ExecStart=/bin/sh /opt/payrail/${LAUNCHER}$`, 'm'));
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/payrail\/payrail\.env$/m);
    const stop = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    // The default grace (PAYRAIL_SHUTDOWN_GRACE_MS) and a margin: systemd must not kill a draining server.
    expect(stop * 1000).toBeGreaterThan(loadConfig({}).shutdownGraceMs);
  });

  it('the sample environment file names only real settings, and the server reads it as it is', () => {
    const lines = read('deploy/payrail.env.example').split('\n');
    const env: Record<string, string> = {};
    for (const line of lines) {
      const set = /^(#?)([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      if (!set) continue;
      const [, commented, name, value] = set as unknown as [string, string, string, string];
      expect(SETTINGS.has(name), name).toBe(true);
      if (!commented) env[name] = value;
    }
    expect(Object.keys(env).length).toBeGreaterThan(5);
    expect(() => loadConfig(env)).not.toThrow();
  });
});
