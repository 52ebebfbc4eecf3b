import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

/**
 * The nginx example of docs/operator/behind-a-proxy.md, run as written (issue 33: "tests run the doc's commands where
 * they can"): only the addresses, ports and certificate paths are made local, and the office network becomes this
 * machine. Debian's nginx (.ci/run installs nginx-light); without it the test skips with a message, never under CI.
 */
const NGINX = '/usr/sbin/nginx';
const hasNginx = existsSync(NGINX);
const DOC = new URL('../../../../docs/operator/behind-a-proxy.md', import.meta.url);

if (!hasNginx) {
  console.warn('nginx example test skipped: no nginx at /usr/sbin/nginx (apt-get install -y nginx-light)');
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** An HTTPS request to the proxy (its certificate is this test's own, so it is not verified). */
const get = (port: number, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, headers, rejectUnauthorized: false, servername: 'localhost' },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            let body: Record<string, unknown>;
            try {
              body = JSON.parse(text) as Record<string, unknown>;
            } catch {
              body = { text };
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
        },
      );
      req.on('error', reject);
      req.end();
    },
  );

describe.runIf(hasNginx)('the nginx example of behind-a-proxy.md', () => {
  let t: TestServer;
  let nginx: ChildProcess;
  let dir: string;
  let publicPort: number;
  let internalPort: number;

  beforeAll(async () => {
    t = await startTestServer('pglite', {
      env: { PAYRAIL_ADMIN_LISTEN: '127.0.0.1:0', PAYRAIL_TRUST_PROXY: '127.0.0.1' },
    });
    const app = new URL(t.url).port;
    const adminPort = new URL(t.server.adminAddress() as string).port;
    dir = mkdtempSync(join(tmpdir(), 'payrail-nginx-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'tls.key'),
        '-out',
        join(dir, 'tls.crt'),
      ],
      { stdio: 'ignore' },
    );
    [publicPort, internalPort] = [await freePort(), await freePort()];
    const example = /```nginx\n([\s\S]*?)```/.exec(readFileSync(DOC, 'utf8'))?.[1];
    expect(example, 'behind-a-proxy.md has an nginx block').toBeTruthy();
    let listens = 0;
    const site = (example as string)
      .replace(/server 10\.0\.0\.1[12]:8080/g, `server 127.0.0.1:${app}`)
      .replace(/server 10\.0\.0\.1[12]:9090/g, `server 127.0.0.1:${adminPort}`)
      .replace(/listen 443 ssl;/g, () => `listen 127.0.0.1:${listens++ === 0 ? publicPort : internalPort} ssl;`)
      .replace(/ssl_certificate\s+\S+;/g, `ssl_certificate ${join(dir, 'tls.crt')};`)
      .replace(/ssl_certificate_key\s+\S+;/g, `ssl_certificate_key ${join(dir, 'tls.key')};`)
      .replace('allow 10.0.0.0/8;', 'allow 127.0.0.1;');
    expect(listens).toBe(2);
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\nevents {}\nhttp {\n` +
        `access_log off;\nclient_body_temp_path ${dir}/body;\nproxy_temp_path ${dir}/proxy;\n` +
        `fastcgi_temp_path ${dir}/fastcgi;\nuwsgi_temp_path ${dir}/uwsgi;\nscgi_temp_path ${dir}/scgi;\n${site}\n}\n`,
    );
    nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
    // Ready when the public side answers.
    for (let i = 0; ; i++) {
      try {
        await get(publicPort, '/healthz');
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });

  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes the merchant side to the public listener, with the request id nginx made', async () => {
    const res = await get(publicPort, '/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.headers['payrail-version']).toMatch(/^\d+\.\d+\.\d+/);
    // nginx's $request_id (32 hex digits) is the id Payrail logs and echoes.
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keeps the admin API off the public side, and serves it and the console on the internal one', async () => {
    const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const outside = await get(publicPort, '/admin/v1/merchants', auth);
    expect(outside.status).toBe(404);
    expect(outside.body.error).toMatchObject({ code: 'route_not_found' });
    const inside = await get(internalPort, '/admin/v1/merchants', auth);
    expect(inside.status).toBe(200);
    expect(inside.body.data).toEqual([]);
    expect((await get(internalPort, '/console')).status).toBe(200);
  });
});

describe.runIf(!hasNginx && process.env.CI)('the nginx example (CI)', () => {
  it('needs nginx', () => {
    expect.fail('nginx is missing: .ci/run installs it (apt-get install -y nginx-light)');
  });
});
