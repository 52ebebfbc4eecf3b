import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBuildInfo, versionLabel } from '../../src/buildInfo.ts';
import { loadMigrations } from '../../src/store/migrate.ts';
import { http } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** This checkout's commit, as the server reads it at start (the tests run from a git clone). */
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

describe('the build the server reports (buildInfo.ts)', () => {
  it('is the package version and the checkout commit, unless the build says which commit', () => {
    expect(resolveBuildInfo(undefined)).toEqual({ version: PACKAGE_VERSION, commit: HEAD });
    expect(resolveBuildInfo('0123456789abcdef0123456789abcdef01234567').commit).toBe(
      '0123456789abcdef0123456789abcdef01234567',
    );
  });

  it('labels the header with semver build metadata, the version alone for a commit that is not a hash', () => {
    expect(versionLabel({ version: '1.2.3', commit: 'abcdef0123456789' })).toBe('1.2.3+abcdef0');
    expect(versionLabel({ version: '1.2.3', commit: 'unknown' })).toBe('1.2.3');
    expect(versionLabel({ version: '1.2.3', commit: 'release build\r\nX-Evil: 1' })).toBe('1.2.3');
  });
});

describe.each(ENGINES)('version visible on %s', (engine) => {
  let t: TestServer;
  let newest: number;
  beforeAll(async () => {
    newest = Math.max(...(await loadMigrations()).map((m) => m.version));
    t = await startTestServer(engine);
  });
  afterAll(() => t.close());

  it('GET /healthz: the version, the commit, both schema versions and the worker', async () => {
    const res = await http(t.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      version: PACKAGE_VERSION,
      commit: HEAD,
      schema: { build: newest, database: newest },
      worker: 'on',
    });
  });

  it('every answer carries Payrail-Version, errors and merchant routes too', async () => {
    const label = `${PACKAGE_VERSION}+${HEAD.slice(0, 7)}`;
    for (const [method, path] of [
      ['GET', '/healthz'],
      ['GET', '/no/such/route'],
      ['POST', '/v1/auth/client-token'],
      ['GET', '/admin/v1/merchants'],
    ] as const) {
      const res = await http(t.url, method, path, method === 'POST' ? { body: {} } : {});
      expect(res.headers.get('payrail-version'), `${method} ${path}`).toBe(label);
    }
  });

  it('GET /metrics: payrail_build_info{version,commit} 1 and the schema versions', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toContain(`payrail_build_info{version="${PACKAGE_VERSION}",commit="${HEAD}"} 1`);
    expect(text).toContain(`payrail_schema_version{of="build"} ${newest}`);
    expect(text).toContain(`payrail_schema_version{of="database"} ${newest}`);
  });

  it("upgrading.md's commands show all three, as written", async () => {
    const markdown = readFileSync(new URL('../../../../docs/operator/upgrading.md', import.meta.url), 'utf8');
    const script = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1] as string)
      .find((b) => b.includes('/metrics')) as string;
    // The doc's server listens on 8080; this one on a free port.
    // Asynchronously: the server answering curl runs in this very process.
    const { stdout: out } = await promisify(execFile)('bash', [
      '-euo',
      'pipefail',
      '-c',
      script.replaceAll('http://127.0.0.1:8080', t.url),
    ]);
    expect(out).toContain(`"version":"${PACKAGE_VERSION}","commit":"${HEAD}"`);
    expect(out).toMatch(new RegExp(`^payrail-version: ${PACKAGE_VERSION}\\+${HEAD.slice(0, 7)}\\s*$`, 'mi'));
    expect(out).toContain(`payrail_build_info{version="${PACKAGE_VERSION}",commit="${HEAD}"} 1`);
    expect(out).toContain(`payrail_schema_version{of="database"} ${newest}`);
  });

  it("the OpenAPI document's info.version is the package version", async () => {
    const doc = (await http(t.url, 'GET', '/openapi.json')).body as { info: { version: string } };
    expect(doc.info.version).toBe(PACKAGE_VERSION);
  });
});

describe('PAYRAIL_BUILD_COMMIT', () => {
  it('is the commit reported when the build sets it (an image built without .git)', async () => {
    const commit = 'feedfacefeedfacefeedfacefeedfacefeedface';
    const t = await startTestServer('pglite', { env: { PAYRAIL_BUILD_COMMIT: commit } });
    try {
      const res = await http(t.url, 'GET', '/healthz');
      expect(res.body).toMatchObject({ commit });
      expect(res.headers.get('payrail-version')).toBe(`${PACKAGE_VERSION}+feedfac`);
    } finally {
      await t.close();
    }
  });
});
