import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PACKAGES = join(ROOT, 'packages');
const SOURCE = /\.(ts|mts|js|mjs)$/;

/**
 * No import cycles in packages/*\/src (ARCHITECTURE.md, "Layers"): two modules that import each other, directly or
 * through others, can only be read, tested and changed together, and at run time one of them sees the other half
 * loaded. Every kind of import counts: `import`, `import type`, `export … from`, `import()` and `require()`, as
 * TypeScript's own pre-parser (ts.preProcessFile) lists them. A type-only cycle counts too: it ties the two files
 * as much, and one edit turns it into a value import. `@payrail/<package>` is its src/index.ts (the
 * "@payrail/source" condition the sources are type-checked and tested with).
 *
 * A test rather than eslint-plugin-import's import/no-cycle: the rule needs a new dependency with its own resolver
 * set-up for the .ts specifiers and the workspace packages, and it is slow on a whole tree; this walk is a few
 * dozen lines on the TypeScript already installed, and runs in well under a second.
 */

/** Every source file of the packages' src/ directories. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const pkg of readdirSync(PACKAGES)) {
    const src = join(PACKAGES, pkg, 'src');
    if (existsSync(src)) walk(src);
  }
  return files.sort();
}

/** The files of ours a module imports: relative specifiers and the workspace packages; other packages are not ours. */
function importsOf(file: string, text: string): { resolved: string[]; unresolved: string[] } {
  const resolved: string[] = [];
  const unresolved: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    let target: string;
    if (fileName.startsWith('.')) target = resolve(dirname(file), fileName);
    else if (fileName.startsWith('@payrail/'))
      target = join(PACKAGES, fileName.slice('@payrail/'.length), 'src/index.ts');
    else continue;
    if (existsSync(target)) resolved.push(target);
    else unresolved.push(fileName);
  }
  return { resolved, unresolved };
}

/** The cycles of a graph: each strongly connected component of more than one file, or a file importing itself. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, recursive: an import chain is a few dozen files deep at most.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** One path around a cycle, to name in the failure: from its first file back to it, inside the component. */
function pathAround(component: string[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = from.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

describe('import cycles in packages/*/src', () => {
  const files = sourceFiles();
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const imports = importsOf(file, readFileSync(file, 'utf8'));
    graph.set(file, imports.resolved);
    unresolved.push(...imports.unresolved.map((s) => `${relative(ROOT, file)}: ${s}`));
  }

  it('reads every source file and resolves every import of ours', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(PACKAGES, 'server/src/config.ts'))).toContain(join(PACKAGES, 'server/src/configSchema.ts'));
    expect(graph.get(join(PACKAGES, 'sdk/src/index.ts'))).toContain(join(PACKAGES, 'protocol/src/index.ts'));
    // An import the walk cannot follow could hide a cycle.
    expect(unresolved).toEqual([]);
  });

  it('has none', () => {
    const cycles = cyclesOf(graph).map((c) =>
      pathAround(c, graph)
        .map((f) => relative(ROOT, f))
        .join(' -> '),
    );
    expect(cycles).toEqual([]);
  });

  it('finds every kind of import, and a cycle through any of them', () => {
    const text = [
      `import { a } from './a.ts';`,
      `import type { B } from './b.ts';`,
      `export { c } from './c.ts';`,
      `export * from './d.ts';`,
      `const e = await import('./e.ts');`,
      `import 'node:fs';`,
    ].join('\n');
    const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    expect(specifiers).toEqual(['./a.ts', './b.ts', './c.ts', './d.ts', './e.ts', 'node:fs']);

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
