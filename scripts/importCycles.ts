/**
 * No import cycles in packages/*\/src (ARCHITECTURE.md, "Layers"): two modules that import each other, directly or
 * through others, can only be read, tested and changed together, and at run time one of them sees the other half
 * loaded. Every kind of import counts: `import`, `import type`, `export … from`, `import()` and `require()`, as
 * TypeScript's own pre-parser (ts.preProcessFile) lists them. A type-only cycle counts too: it ties the two files
 * as much, and one edit turns it into a value import. `@payrail/<package>` is its src/index.ts (the
 * "@payrail/source" condition the sources are type-checked and tested with).
 *
 *   tsx scripts/importCycles.ts      (part of `npm run lint`: prints each cycle, file by file, and exits 1)
 *
 * A script rather than eslint-plugin-import's import/no-cycle: the rule needs a new dependency with its own resolver
 * set-up for the .ts specifiers and the workspace packages, and it is slow on a whole tree; this walk is a few
 * dozen lines on the TypeScript already installed, and runs in well under a second.
 * packages/server/test/ci/importCycles.test.ts checks the walk itself on small graphs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PACKAGES = join(ROOT, 'packages');
const SOURCE = /\.(ts|mts|js|mjs)$/;

/** Every source file of the packages' src/ directories. */
export function sourceFiles(): string[] {
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
export function importsOf(file: string, text: string): { resolved: string[]; unresolved: string[] } {
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

/** The import graph of packages/*\/src, and the imports of ours it could not follow (`file: specifier`). */
export function importGraph(): { files: string[]; graph: Map<string, string[]>; unresolved: string[] } {
  const files = sourceFiles();
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const imports = importsOf(file, readFileSync(file, 'utf8'));
    graph.set(file, imports.resolved);
    unresolved.push(...imports.unresolved.map((s) => `${relative(ROOT, file)}: ${s}`));
  }
  return { files, graph, unresolved };
}

/** The cycles of a graph: each strongly connected component of more than one file, or a file importing itself. */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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
export function pathAround(component: string[], graph: ReadonlyMap<string, readonly string[]>): string[] {
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

/** The cycles of packages/*\/src, each as one path around it ("a.ts -> b.ts -> a.ts", relative to the root). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]> = importGraph().graph): string[] {
  return cyclesOf(graph).map((c) =>
    pathAround(c, graph)
      .map((f) => relative(ROOT, f))
      .join(' -> '),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { files, graph, unresolved } = importGraph();
  const cycles = importCycles(graph);
  const problems = [
    ...(files.length === 0 ? ['no source file found under packages/*/src'] : []),
    // An import the walk cannot follow could hide a cycle.
    ...unresolved.map((u) => `an import of ours that does not resolve (a cycle could hide behind it): ${u}`),
    ...cycles.map((c) => `import cycle: ${c}`),
  ];
  if (problems.length) {
    for (const p of problems) console.error(p);
    console.error(
      'Modules must not import themselves through others (ARCHITECTURE.md, "Layers"): move what both need into a third.',
    );
    process.exit(1);
  }
}
