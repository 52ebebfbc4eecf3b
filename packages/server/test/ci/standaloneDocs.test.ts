import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * A clone stands alone: nothing in the sources, tests or docs points at the contract document the project was
 * specified against (it is not in the repository); the decisions are stated in docs/ and SECURITY.md instead.
 */
it('refers to no document outside the repository', () => {
  // The file name, or a section of it ("CONTRACT" then a space and a section sign).
  const pattern = ['CONTRACT', '(\\.md| §)'].join('');
  let hits = '';
  try {
    hits = execFileSync(
      'git',
      ['grep', '-n', '-E', pattern, '--', 'packages', 'docs', 'README.md', 'SECURITY.md', 'ARCHITECTURE.md', 'bench'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
  } catch (err) {
    // git grep exits 1 when nothing matches.
    if ((err as { status?: number }).status !== 1) throw err;
  }
  expect(hits).toBe('');
});
