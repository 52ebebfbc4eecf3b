import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Connectors are asked and answer (ARCHITECTURE.md, "Layers"): packages/server/src/rails imports neither the use
 * cases (services/) nor the storage (store/), which call it. This file checks that `npm run lint` refuses such an
 * import (eslint.config.js, the rails/ layer), and still lets the use cases and the jobs call a connector.
 */
describe('imports into packages/server/src/rails', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  /** The lines of `code`, as the file `path`, that the layer rule refuses. */
  const refused = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line);
  };

  const IMPORTS = [
    `import type { CollectionOutcomes } from '../../services/CollectionOutcomes.ts';`,
    `import { JobRepository } from '../../store/repositories/JobRepository.ts';`,
    `import type { Database } from '../../store/Database.ts';`,
    `import type { AdminError } from '../../http/AdminError.ts';`,
  ];
  const code = `${IMPORTS.join('\n')}\nexport type T = [CollectionOutcomes, Database, AdminError, typeof JobRepository];\n`;

  it('refuses services/, store/ and http/ in a connector', async () => {
    expect(await refused('packages/server/src/rails/upstream/Example.ts', code)).toEqual([1, 2, 3, 4]);
    expect(await refused('packages/server/src/rails/Example.ts', code.replaceAll('../../', '../'))).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it('lets a connector use the domain, and the use cases and jobs call a connector', async () => {
    const domain = `import type { Collection } from '../../domain/Collection.ts';\nexport type T = Collection;\n`;
    expect(await refused('packages/server/src/rails/upstream/Example.ts', domain)).toEqual([]);
    const caller = `import { UpstreamCollections } from '../rails/upstream/UpstreamCollections.ts';\nexport const C = UpstreamCollections;\n`;
    expect(await refused('packages/server/src/services/Example.ts', caller)).toEqual([]);
    expect(await refused('packages/server/src/jobs/Example.ts', caller)).toEqual([]);
  });
});
