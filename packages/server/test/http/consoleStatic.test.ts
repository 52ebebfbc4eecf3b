import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THEME_CSS } from '../../src/http/views/theme.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/** The console is served by the server itself: one page, its modules and Preact from node_modules. */
describe('console files', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('pglite');
  }, 180_000);
  afterAll(() => t.close());

  it('serves the page with a strict Content-Security-Policy (own scripts only, never framed)', async () => {
    const res = await fetch(`${t.url}/console`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await res.text()).toContain('/console/assets/app.js');
  });

  it('serves Preact, its hooks and htm as ES modules, the hooks pointed at our Preact', async () => {
    for (const name of ['preact.js', 'hooks.js', 'htm.js']) {
      const res = await fetch(`${t.url}/console/assets/vendor/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    }
    const hooks = await (await fetch(`${t.url}/console/assets/vendor/hooks.js`)).text();
    expect(hooks).toContain('from"./preact.js"');
    expect(hooks).not.toMatch(/from\s*["']preact["']/);
  });

  it("links the payment page's stylesheet before its own, so both share one look", async () => {
    const page = await (await fetch(`${t.url}/console`)).text();
    const theme = page.indexOf('/console/assets/theme.css');
    expect(theme).toBeGreaterThan(0);
    expect(theme).toBeLessThan(page.indexOf('/console/assets/console.css'));
    const res = await fetch(`${t.url}/console/assets/theme.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await res.text()).toBe(THEME_CSS);
    // The console's own sheet defines no palette of its own: it uses the theme's variables.
    const own = await (await fetch(`${t.url}/console/assets/console.css`)).text();
    expect(own).toContain('var(--primary)');
    expect(own).not.toMatch(/--(brand|ink|card|line):\s*#/);
  });

  it('serves every module the console imports, from its folders too (operator/, merchant/, shared/)', async () => {
    const seen = new Set<string>();
    const queue = ['app.js'];
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await fetch(`${t.url}/console/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type'), name).toMatch(/^text\/javascript/);
      expect(res.headers.get('cache-control'), name).toBe('no-cache');
      // Relative imports only: a module resolves them against its own address, as the browser does.
      for (const [, spec] of (await res.text()).matchAll(/\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        queue.push(new URL(spec as string, `http://console/${name}`).pathname.slice(1));
      }
    }
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'vendor/preact.js',
        'vocabulary.js',
        'operator/routes.js',
        'operator/CollectionDetail.js',
        'merchant/routes.js',
        'merchant/CollectionPage.js',
        'shared/CollectionFacts.js',
      ]),
    );
  });

  it('answers gzip to a browser that accepts it', async () => {
    const res = await fetch(`${t.url}/console/assets/app.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    // fetch decompresses by itself; the header says it came compressed.
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(await res.text()).toContain('render(');
  });

  it('answers 404 for anything else, path tricks included', async () => {
    for (const path of [
      '/console/assets/nope.js',
      '/console/assets/../package.json',
      '/console/assets/%2e%2e/src/config.ts',
    ]) {
      expect((await fetch(`${t.url}${path}`)).status, path).toBe(404);
    }
  });
});
