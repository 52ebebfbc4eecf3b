import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * One way to make a package's tarball in every page (issue 32: the SDK's README and packages-and-cli.md gave two):
 * `npm pack -w packages/<name> --pack-destination <dir>` from the repository's root, the command the SDK's README
 * gives and packages/sdk/test/packaging.test.ts runs the equivalent of (prepack builds first).
 */
it('gives one npm pack command, from the root, for every package', () => {
  const pages = ['README.md', 'packages/sdk/README.md', 'packages/cli/README.md', 'packages/protocol/README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
      else if (entry.name.endsWith('.md')) pages.push(`${dir}/${entry.name}`);
    }
  };
  walk('docs');
  const commands: { page: string; line: string }[] = [];
  for (const page of pages) {
    let text: string;
    try {
      text = readFileSync(join(ROOT, page), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      // A command line: `npm pack …`, or `cd somewhere && npm pack …`.
      if (/^\s*(cd \S+\s*&&\s*)?npm pack\b/.test(line)) commands.push({ page, line });
    }
  }
  expect(commands.map((c) => c.page)).toEqual(expect.arrayContaining(['packages/sdk/README.md']));
  expect(commands.map((c) => c.page)).toEqual(expect.arrayContaining(['docs/operator/packages-and-cli.md']));
  const other = commands.filter(
    ({ line }) => !/^npm pack -w packages\/[a-z]+ --pack-destination \S+(\s+#.*)?$/.test(line.trim()),
  );
  expect(other).toEqual([]);
});
