import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, Payrail, PayrailError } from '../src/index.ts';

const SRC = new URL('../src/', import.meta.url);

describe('the SDK package', () => {
  it('imports nothing but @payrail/protocol, Node built-ins and its own files', async () => {
    const files = (await readdir(SRC)).filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      const text = await readFile(new URL(file, SRC), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        expect({ file, spec }).toSatisfy(
          ({ spec: s }: { spec: string }) =>
            s === '@payrail/protocol' || s.startsWith('node:') || /^\.\/[\w.]+\.ts$/.test(s),
        );
      }
    }
    // The published SDK inlines the protocol: it depends on nothing at run time.
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.devDependencies ?? {})).toEqual(['@payrail/protocol']);
  });

  it('refuses unusable options with ConfigurationError', () => {
    const bad = [
      { baseUrl: 'not a url', apiKey: 'k', secretKey: 's' },
      { baseUrl: 'ftp://example.com', apiKey: 'k', secretKey: 's' },
      { baseUrl: 'http://127.0.0.1:1', apiKey: '', secretKey: 's' },
      { baseUrl: 'http://127.0.0.1:1', apiKey: 'k', secretKey: 's', scheme: 'v3' as 'v2' },
    ];
    for (const options of bad) {
      let caught: unknown;
      try {
        new Payrail(options);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ConfigurationError);
      expect(caught).toBeInstanceOf(PayrailError);
      expect(caught).toMatchObject({ code: 'CONFIG', operation: 'config' });
    }
    const ok = new Payrail({ baseUrl: 'http://127.0.0.1:8080/', apiKey: 'k', secretKey: 's', scheme: 'v1' });
    expect(ok.baseUrl).toBe('http://127.0.0.1:8080');
    expect(ok.scheme).toBe('v1');
  });
});
