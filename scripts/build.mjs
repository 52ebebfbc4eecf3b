#!/usr/bin/env node
// Builds the workspace packages into their dist/ folders (docs/operator/packages-and-cli.md, "Building").
//
//   node scripts/build.mjs [--no-types] [protocol|sdk|server|cli …]     (no package: all four, in that order)
//
// --no-types skips the libraries' declarations (only `npm pack` and TypeScript users need them): that is what
// `npm install` (prepare) and `npm start` (prestart) run, in about a second.
//
// - protocol, sdk: published libraries. One bundled ESM file (dist/esm/index.js) and one CommonJS file
//   (dist/cjs/index.js, beside a package.json that says "commonjs"), plus .d.ts declarations in both folders.
//   The SDK inlines the parts of @payrail/protocol it uses, so it has no runtime dependency at all.
// - server, cli: run in place, never published. Each source file becomes one JavaScript file at the same place
//   under dist/ (relative imports rewritten from .ts to .js, packages left to node_modules), and every non-.ts file
//   under src/ (SQL migrations, assets) is copied beside them, so paths relative to import.meta.url still hold.
//
// esbuild only transpiles; types are checked by `npm run lint` (and by tsc while emitting the declarations).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const TSC = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
// Resolves @payrail/* imports to their TypeScript sources (see the "exports" maps), so a package never waits
// for another package's build.
const SOURCE_CONDITION = '@payrail/source';
const NODE_TARGET = 'node20';

const pkgDir = (name) => join(ROOT, 'packages', name);

/**
 * A package is built into a folder of its own and swapped in for dist/ at the end (two renames), so that a process
 * running the package meanwhile (tests run the compiled CLI while another file packs the libraries) never finds dist/
 * missing or half written.
 */
function freshDist(dir) {
  const fresh = join(dir, `dist-build-${process.pid}`);
  rmSync(fresh, { recursive: true, force: true });
  return fresh;
}

function swapIn(dir, fresh) {
  const dist = join(dir, 'dist');
  const old = join(dir, `dist-old-${process.pid}`);
  rmSync(old, { recursive: true, force: true });
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(fresh, dist);
  rmSync(old, { recursive: true, force: true });
}

function walk(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** A library: bundled ESM + CommonJS, and declarations for both. */
async function buildLibrary(name, { bundleAll }) {
  const dir = pkgDir(name);
  const dist = freshDist(dir);
  const common = {
    entryPoints: [join(dir, 'src/index.ts')],
    bundle: true,
    platform: 'node',
    target: NODE_TARGET,
    conditions: [SOURCE_CONDITION],
    // protocol keeps its own dependencies (standardwebhooks) external; the SDK inlines what it uses.
    packages: bundleAll ? undefined : 'external',
    sourcemap: false,
    logLevel: 'warning',
  };
  await build({ ...common, format: 'esm', outfile: join(dist, 'esm/index.js') });
  await build({ ...common, format: 'cjs', outfile: join(dist, 'cjs/index.js') });
  writeFileSync(join(dist, 'cjs/package.json'), '{ "type": "commonjs" }\n');
  if (bundleAll) assertSelfContained(join(dist, 'esm/index.js'), join(dist, 'cjs/index.js'));
  if (withTypes) await buildDeclarations(name, dir, dist, { bundleAll });
  swapIn(dir, dist);
}

/**
 * Declarations: tsc writes them to <dist>/types (the SDK's, with the protocol's, to types-raw first), then they are
 * fixed up for Node's resolution and copied to both format folders. `dist` is the folder being built, not dist/.
 */
async function buildDeclarations(name, dir, dist, { bundleAll }) {
  const types = join(dist, 'types');
  const outDir = join(dist, bundleAll ? 'types-raw' : 'types');
  execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.build.json'), '--outDir', outDir], {
    stdio: 'inherit',
  });
  if (bundleAll) {
    // tsc wrote packages/{sdk,protocol}/src/*.d.ts under types-raw: the SDK's at the top, the protocol's below.
    const raw = join(dist, 'types-raw');
    cpSync(join(raw, name, 'src'), types, { recursive: true });
    cpSync(join(raw, 'protocol/src'), join(types, 'protocol'), { recursive: true });
    rmSync(raw, { recursive: true, force: true });
  }
  const files = walk(types).filter((f) => f.endsWith('.d.ts'));
  for (const file of files) {
    let text = readFileSync(file, 'utf8');
    // tsc keeps `./x.ts` specifiers in declarations; Node-style resolution (NodeNext) wants `./x.js`.
    text = text.replace(/(from\s+|import\(\s*)(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2');
    if (bundleAll) {
      // The SDK's declarations refer to the protocol's bundled copy, not to a package the user does not have.
      const target = relative(dirname(file), join(types, 'protocol/index.js')).replaceAll('\\', '/');
      text = text.replace(/(['"])@payrail\/protocol\1/g, `$1${target.startsWith('.') ? target : `./${target}`}$1`);
    }
    writeFileSync(file, text);
  }
  for (const format of ['esm', 'cjs']) cpSync(types, join(dist, format), { recursive: true });
  rmSync(types, { recursive: true, force: true });
}

/** No import or require of any package except node: built-ins: the SDK needs nothing but Node. */
function assertSelfContained(...files) {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*|require\(\s*)(['"])([^'"]+)\1/g)].map((m) => m[2]);
    const foreign = specifiers.filter((s) => !s.startsWith('node:'));
    if (foreign.length > 0) throw new Error(`${relative(ROOT, file)} still imports ${foreign.join(', ')}`);
  }
}

/** An application package: one JavaScript file per source file, same layout, assets copied. */
async function buildApplication(name) {
  const dir = pkgDir(name);
  const src = join(dir, 'src');
  const dist = freshDist(dir);
  const all = walk(src);
  await build({
    entryPoints: all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    outdir: dist,
    outbase: src,
    bundle: true, // only so that the plugin below sees every import; nothing is actually inlined
    format: 'esm',
    platform: 'node',
    target: NODE_TARGET,
    logLevel: 'warning',
    plugins: [
      {
        name: 'keep-imports',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            const path = /^\.{1,2}\//.test(args.path) ? args.path.replace(/\.ts$/, '.js') : args.path;
            return { path, external: true };
          });
        },
      },
    ],
  });
  for (const file of all.filter((f) => !f.endsWith('.ts'))) {
    const to = join(dist, relative(src, file));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(file, to);
  }
  swapIn(dir, dist);
}

const BUILDERS = {
  protocol: () => buildLibrary('protocol', { bundleAll: false }),
  sdk: () => buildLibrary('sdk', { bundleAll: true }),
  server: () => buildApplication('server'),
  cli: () => buildApplication('cli'),
};

const args = process.argv.slice(2);
const withTypes = !args.includes('--no-types');
const wanted = args.filter((a) => a !== '--no-types');
for (const name of wanted.length > 0 ? wanted : Object.keys(BUILDERS)) {
  const builder = BUILDERS[name];
  if (!builder) throw new Error(`unknown package ${name}; expected one of ${Object.keys(BUILDERS).join(', ')}`);
  const started = Date.now();
  await builder();
  process.stderr.write(`built ${name} (${Date.now() - started} ms)\n`);
}
