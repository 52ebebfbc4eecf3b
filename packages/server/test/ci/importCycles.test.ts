import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cyclesOf,
  importCycles,
  importGraph,
  importsOf,
  PACKAGES,
  pathAround,
} from '../../../../scripts/importCycles.ts';

/**
 * No import cycles in packages/*\/src (ARCHITECTURE.md, "Layers"). `npm run lint` runs the check
 * (scripts/importCycles.ts); this file checks the walk itself: that it reads the tree and follows every import of
 * ours, and that it finds a cycle through any kind of import.
 */
describe('import cycles in packages/*/src', () => {
  const { files, graph, unresolved } = importGraph();

  it('reads every source file and resolves every import of ours', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(PACKAGES, 'server/src/config.ts'))).toContain(join(PACKAGES, 'server/src/configSchema.ts'));
    expect(graph.get(join(PACKAGES, 'sdk/src/index.ts'))).toContain(join(PACKAGES, 'protocol/src/index.ts'));
    // An import the walk cannot follow could hide a cycle.
    expect(unresolved).toEqual([]);
  });

  it('has none', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('finds every kind of import, and a cycle through any of them', () => {
    const text = [
      `import { a } from './a.ts';`,
      `import type { B } from './b.ts';`,
      `export { c } from './c.ts';`,
      `export * from './d.ts';`,
      `const e = await import('./e.ts');`,
      `import 'node:fs';`,
      `import { encryptJson } from '@payrail/protocol';`,
    ].join('\n');
    // None of ./a.ts … ./e.ts exists beside the file: each is an import of ours left unresolved; node:fs is not ours.
    expect(importsOf(join(PACKAGES, 'server/src/example.ts'), text)).toEqual({
      resolved: [join(PACKAGES, 'protocol/src/index.ts')],
      unresolved: ['./a.ts', './b.ts', './c.ts', './d.ts', './e.ts'],
    });

    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
    expect(cyclesOf(new Map([['a', ['a']]]))).toEqual([['a']]);
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']]);
    expect(pathAround(['a', 'b', 'c'], graph)).toEqual(['a', 'b', 'c', 'a']);
  });
});
