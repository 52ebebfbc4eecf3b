import {
  COLLECTION_STATUSES,
  DELIVERY_STATES,
  EXCEPTION_KIND_NAMES,
  EXCEPTION_STATES,
  RECON_RESULT_NAMES,
  OPERATOR_ROLES,
  PAYOUT_STATUSES,
  ROUTE_SCHEMAS as R,
  type RouteRequest,
} from '@payrail/protocol';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { THEME_CSS } from '../views/theme.ts';
import { sendAdminError } from '../AdminError.ts';
import { CONSOLE_CSP } from '../plugins/securityHeaders.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** packages/server/console, found from src/http/routes (or a compiled copy at the same depth). */
const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'console');

interface Asset {
  body: Buffer;
  type: string;
  /** Compressed once at start: the whole console is about 24 KB gzipped instead of 83 KB. */
  gzip?: Buffer;
}

/**
 * Preact, its hooks and htm, straight from node_modules as ES modules (no build step). The hooks module imports
 * the bare name "preact"; it is pointed at our copy here, so the page needs no import map (and no inline script).
 */
function vendorAssets(): Map<string, Asset> {
  const require = createRequire(import.meta.url);
  const js = (path: string, rewrite?: (text: string) => string) => {
    const text = readFileSync(path, 'utf8');
    return { body: Buffer.from(rewrite ? rewrite(text) : text), type: TYPES['.js'] as string };
  };
  const preactDir = dirname(require.resolve('preact'));
  const hooksDir = dirname(require.resolve('preact/hooks'));
  const htmDir = dirname(require.resolve('htm'));
  return new Map([
    ['vendor/preact.js', js(join(preactDir, 'preact.module.js'))],
    [
      'vendor/hooks.js',
      js(join(hooksDir, 'hooks.module.js'), (t) => t.replace(/from\s*["']preact["']/g, 'from"./preact.js"')),
    ],
    ['vendor/htm.js', js(join(htmDir, 'htm.module.js'))],
    // The wire's lists (statuses, roles) from @payrail/protocol: the console keeps no copy of its own.
    ['vocabulary.js', { body: Buffer.from(consoleVocabulary()), type: TYPES['.js'] as string }],
    // The payment page's stylesheet, so the console and the page share one look (console.css only adds layout).
    ['theme.css', { body: Buffer.from(THEME_CSS), type: TYPES['.css'] as string }],
  ]);
}

function ownAssets(): Map<string, Asset> {
  const out = new Map<string, Asset>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else if (TYPES[extname(entry.name)]) {
        out.set(rel, { body: readFileSync(join(dir, entry.name)), type: TYPES[extname(entry.name)] as string });
      }
    }
  };
  walk(CONSOLE_DIR, '');
  return out;
}

/** vocabulary.js: the lists the console's filters and forms offer, as protocol defines them. */
export function consoleVocabulary(): string {
  const lists = {
    PAYOUT_STATUSES,
    COLLECTION_STATUSES,
    DELIVERY_STATES,
    OPERATOR_ROLES,
    EXCEPTION_KINDS: EXCEPTION_KIND_NAMES,
    EXCEPTION_STATES,
    RECONCILIATION_RESULTS: RECON_RESULT_NAMES,
  };
  return [
    '// Served by the server from @payrail/protocol (consoleStaticRoutes.ts): not a file of its own.',
    ...Object.entries(lists).map(([name, list]) => `export const ${name} = ${JSON.stringify(list)};`),
    '',
  ].join('\n');
}

/** Serves the console at /console: read once at start, from the package itself (no CDN, no internet). */
export function consoleStaticRoutes(app: FastifyInstance) {
  const assets = new Map([...ownAssets(), ...vendorAssets()]);
  for (const asset of assets.values())
    if (asset.type !== TYPES['.png']) asset.gzip = gzipSync(asset.body, { level: 9 });
  const body = (request: FastifyRequest, reply: FastifyReply, asset: Asset) => {
    reply.header('vary', 'accept-encoding');
    if (asset.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(asset.gzip);
    }
    return reply.send(asset.body);
  };
  const send = (name: string) => {
    const asset = assets.get(name);
    return asset ?? null;
  };
  const config = { errorStyle: 'plain' as const };
  const hidden = <S extends object>(schema: S) => ({ schema: { hide: true, ...schema }, config });

  // Nosniff, no referrer and the rest come from registerSecurityHeaders; the files hold no secret, so a cache may
  // keep them if it asks again each time (no-cache instead of the default no-store).
  app.get('/console', hidden(R['GET /console']), async (request, reply) => {
    const page = send('index.html') as Asset;
    reply
      .header('content-type', page.type)
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONSOLE_CSP);
    return body(request, reply, page);
  });
  app.get('/console/', hidden(R['GET /console/']), async (_request, reply) => reply.redirect('/console', 301));
  // A person who opens the server's address in a browser lands on the console (302: the root may serve something
  // else one day). Straight to /console, which /console/ redirects to anyway.
  app.get('/', hidden(R['GET /']), async (_request, reply) => reply.redirect('/console', 302));

  app.get<RouteRequest<'GET /console/assets/*'>>(
    '/console/assets/*',
    hidden(R['GET /console/assets/*']),
    async (request, reply) => {
      const name = request.params['*'];
      const asset = name.includes('..') ? null : send(name);
      if (!asset || name === 'index.html') {
        return sendAdminError(reply, 'route_not_found', 'No such console file');
      }
      reply.header('content-type', asset.type).header('cache-control', 'no-cache');
      return body(request, reply, asset);
    },
  );
}
