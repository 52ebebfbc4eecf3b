import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** README.md, every page under docs/ and the packages' READMEs: the pages whose commands people paste. */
function pages(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    if (readdirSync(join(ROOT, 'packages', pkg)).includes('README.md')) found.push(`packages/${pkg}/README.md`);
  }
  return found;
}

/** The shell blocks of a page: ```sh, ```bash, ```shell, ```console, and the untagged ones (CLI sessions). */
function shellBlocks(text: string): string[] {
  const blocks: string[] = [];
  let open: { shell: boolean; lines: string[] } | null = null;
  for (const line of text.split('\n')) {
    const fence = /^\s*```\s*([A-Za-z0-9_-]*)/.exec(line);
    if (!fence) {
      open?.lines.push(line);
    } else if (open) {
      if (open.shell) blocks.push(open.lines.join('\n'));
      open = null;
    } else {
      open = { shell: ['', 'sh', 'bash', 'shell', 'console'].includes(fence[1] as string), lines: [] };
    }
  }
  return blocks;
}

/**
 * What a block's commands write into the current directory: `tee FILE`, `> FILE` / `>> FILE`, `--dir`, `--out`,
 * `--data-dir`, `--output`, `-o FILE`, `mkdir DIR` and `PAYRAIL_…DIR=DIR`. Absolute paths, variables, placeholders
 * (DIR, <file>, …) and /dev/null are not files of the work tree.
 */
export function writtenPaths(block: string): string[] {
  const code = block
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .join('\n');
  // [pattern, whether it names a folder (written with a trailing slash, as git matches folders)]
  const patterns: [RegExp, boolean][] = [
    [/\btee\s+(?:-a\s+)?([^\s|;&)"'`]+)/g, false],
    [/(?<![0-9&<>-])>>?\s*([^\s|;&)"'`>&]+)/g, false],
    [/\s--(?:out|output)[\s=]+([^\s|;&)"'`\]]+)/g, false],
    [/\s-o\s+([^\s|;&)"'`]+)/g, false],
    [/\s--(?:dir|data-dir)[\s=]+([^\s|;&)"'`\]]+)/g, true],
    [/\bmkdir\s+(?:-p\s+)?([^\s|;&)"'`]+)/g, true],
    [/\bPAYRAIL_[A-Z_]*DIR=([^\s|;&)"'`]+)/g, true],
  ];
  const paths = new Set<string>();
  for (const [pattern, folder] of patterns) {
    for (const m of code.matchAll(pattern)) {
      const target = (m[1] as string).replace(/^["']|["']$/g, '');
      if (/^(\/|\$|~|&|<|-)/.test(target) || /[<>…*{}$]/.test(target) || /^[A-Z_]+$/.test(target)) continue;
      if (target === 'on' || target === 'off') continue;
      const path = target.replace(/^\.\//, '').replace(/\/$/, '');
      if (path !== '' && path !== '.') paths.add(folder ? `${path}/` : path);
    }
  }
  return [...paths];
}

describe('what the docs create stays out of git (issue 32)', () => {
  const writes = pages().flatMap((page) =>
    shellBlocks(readFileSync(join(ROOT, page), 'utf8')).flatMap((block) =>
      writtenPaths(block).map((path) => ({ page, path })),
    ),
  );

  it('finds the files the walk-throughs write', () => {
    const paths = new Set(writes.map((w) => w.path));
    for (const known of ['merchant.json', 'acme.json', 'upstream-account.json', 'data-upstream/', 'bank/']) {
      expect(paths, known).toContain(known);
    }
  });

  it('lists every file and folder the commands of the README and the guides write in .gitignore', () => {
    const notIgnored = writes.filter(({ path }) => {
      // --no-index: the rule is what counts, whether or not such a file exists or is tracked today.
      const r = spawnSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
      if (r.status === 128) throw new Error(`git check-ignore failed: ${String(r.stderr)}`);
      return r.status !== 0;
    });
    expect(notIgnored).toEqual([]);
  });

  it('reads the writes of a command as a shell would', () => {
    const block = [
      "curl -s … -d '{}' | tee merchant.json",
      'npx payrail merchant create "A" --json > acme.json 2>&1 && echo ok >/dev/null',
      'PAYRAIL_DATA_DIR=./data-upstream PAYRAIL_BANKFILE_DIR=./bank npm start # writes > not-this.json',
      'npx payrail bank simulate --dir ./bank --statement; payrail recon report --out run.csv >> log.txt',
      'payrail x --out /tmp/abs.csv --dir DIR --out <file> > "$OUT" 2>/dev/null >&2',
    ].join('\n');
    expect(writtenPaths(block).sort()).toEqual(
      ['acme.json', 'bank/', 'data-upstream/', 'log.txt', 'merchant.json', 'run.csv'].sort(),
    );
    // The git this test asks is the repository's.
    expect(execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: ROOT, encoding: 'utf8' }).trim()).toBe(
      ROOT.replace(/\/$/, ''),
    );
  });
});
