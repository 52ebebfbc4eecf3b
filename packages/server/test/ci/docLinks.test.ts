import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Every .md file under a folder, as paths relative to the repository root. */
function markdownUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...markdownUnder(path));
    else if (entry.name.endsWith('.md')) found.push(path);
  }
  return found.sort();
}

/** The documents a reader follows links through: the root's, docs/ and each package's README. */
function documents(): string[] {
  const packages = readdirSync(join(ROOT, 'packages'))
    .map((name) => join('packages', name, 'README.md'))
    .filter((path) => existsSync(join(ROOT, path)));
  return ['README.md', 'ARCHITECTURE.md', 'SECURITY.md', ...markdownUnder('docs'), ...packages];
}

/** The lines of a Markdown file outside fenced code blocks, with inline code spans blanked. */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence !== null) {
      if (opening?.[1]?.[0] === fence[0] && (opening?.[1]?.length ?? 0) >= fence.length) fence = null;
      return;
    }
    if (opening) {
      fence = opening[1] ?? null;
      return;
    }
    lines.push({ line: index + 1, text: raw.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length)) });
  });
  return lines;
}

/**
 * The anchor GitHub gives a heading: its text as rendered (code spans, links and emphasis reduced to their text),
 * lower case, punctuation dropped except `-` and `_`, each space a `-`; a repeated slug gets `-1`, `-2`, ….
 */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const raw of markdown.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence !== null) {
      if (opening?.[1]?.[0] === fence[0] && (opening?.[1]?.length ?? 0) >= fence.length) fence = null;
      continue;
    }
    if (opening) {
      fence = opening[1] ?? null;
      continue;
    }
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+\s*)?$/.exec(raw);
    if (heading) {
      const text = (heading[1] ?? '')
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<[^>]+>/g, '')
        .replace(/[`*]/g, '');
      const base = text
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
        .replace(/ /g, '-');
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      slugs.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const html of raw.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) slugs.add(html[1] ?? '');
  }
  return slugs;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** Relative links and images of a Markdown file: `[text](target)`, `![alt](target)` and `[label]: target`. */
function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const { line, text } of proseLines(readFileSync(join(ROOT, file), 'utf8'))) {
    const targets = [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)].map((m) => m[1] ?? ''),
      ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$/g)].map((m) => m[1] ?? ''),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, mailto:, …
      links.push({ file, line, target });
    }
  }
  return links;
}

/** Why a link does not resolve, or null when it does. */
function brokenBecause(link: Link): string | null {
  const hash = link.target.indexOf('#');
  const path = decodeURIComponent(hash === -1 ? link.target : link.target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(link.target.slice(hash + 1));
  const resolved = path === '' ? join(ROOT, link.file) : resolve(ROOT, dirname(link.file), path);
  if (!existsSync(resolved)) return `${relative(ROOT, resolved)} does not exist`;
  if (anchor === null || anchor === '') return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return null; // anchors of code files: line numbers
  const slugs = headingSlugs(readFileSync(resolved, 'utf8'));
  return slugs.has(anchor) ? null : `${relative(ROOT, resolved)} has no heading #${anchor}`;
}

describe('documentation links', () => {
  const files = documents();

  it('finds the documents', () => {
    expect(files).toContain('docs/README.md');
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
  });

  it('resolve: every relative link names an existing file, and every #anchor a heading of it', () => {
    const broken = files
      .flatMap(relativeLinks)
      .map((link) => ({ link, why: brokenBecause(link) }))
      .filter(({ why }) => why !== null)
      .map(({ link, why }) => `${link.file}:${link.line}: (${link.target}) ${why}`);
    expect(broken).toEqual([]);
  });

  it('docs/README.md lists every document under docs/', () => {
    const listed = new Set(
      relativeLinks('docs/README.md').map((link) =>
        relative(ROOT, resolve(ROOT, 'docs', link.target.split('#')[0] ?? '')),
      ),
    );
    const missing = markdownUnder('docs').filter((file) => file !== 'docs/README.md' && !listed.has(file));
    expect(missing).toEqual([]);
  });

  it('names no specification document outside the repository', () => {
    const name = ['CONTRACT', 'md'].join('.');
    const hits = files.filter((file) => readFileSync(join(ROOT, file), 'utf8').includes(name));
    expect(hits).toEqual([]);
  });

  it('computes anchors as GitHub does', () => {
    const slugs = headingSlugs(
      [
        '# Payload encryption',
        '## V2 — AES-256-GCM (recommended)',
        '### Initiate: `POST /payout/v1/initiate`',
        '```sh',
        '# not a heading',
        '```',
        '## Payload encryption',
        '## Client address behind a proxy: `PAYRAIL_TRUST_PROXY`',
      ].join('\n'),
    );
    expect([...slugs]).toEqual([
      'payload-encryption',
      'v2--aes-256-gcm-recommended',
      'initiate-post-payoutv1initiate',
      'payload-encryption-1',
      'client-address-behind-a-proxy-payrail_trust_proxy',
    ]);
  });
});
