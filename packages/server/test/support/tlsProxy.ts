import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TlsProxy {
  /** `https://127.0.0.1:<port>` (the certificate names both localhost and 127.0.0.1) */
  url: string;
  /** The proxy's self-signed certificate, for the client to trust. */
  ca: string;
  /** Where requests go (set after the server behind it has started). */
  target: string;
  stop(): Promise<void>;
}

/**
 * An HTTPS front for a test server, as an operator would run one (TLS ends at the proxy, which adds
 * X-Forwarded-Proto): the certificate is made by Debian's openssl for `localhost` in a temporary folder.
 */
export async function startTlsProxy(): Promise<TlsProxy> {
  const dir = await mkdtemp(join(tmpdir(), 'payrail-tls-'));
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ]);
  const [key, cert] = await Promise.all([
    readFile(join(dir, 'key.pem'), 'utf8'),
    readFile(join(dir, 'cert.pem'), 'utf8'),
  ]);
  const proxy: TlsProxy = { url: '', ca: cert, target: '', stop: async () => {} };
  const server: Server = createServer({ key, cert }, (req, res) => {
    const upstream = httpRequest(
      new URL(req.url ?? '/', proxy.target),
      { method: req.method, headers: { ...req.headers, 'x-forwarded-proto': 'https' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  };
  return proxy;
}
