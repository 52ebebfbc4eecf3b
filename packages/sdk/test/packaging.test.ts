import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../../server/test/support/merchantClient.ts';
import { freePort } from '../../server/test/support/childServer.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../../server/test/support/testServer.ts';

// The built artefacts, as a user gets them: `npm pack` of the SDK and the protocol (each builds first, through
// prepack), installed into a new project outside the workspace; the compiled CLI; and `npm start`. The server and
// the CLI are built by the tests' global setup (packages/server/test/globalSetup.ts); this is the one test file that
// rebuilds anything (scripts/build.mjs swaps each package's dist/ in whole, so files running meanwhile are safe).

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/.bin/tsc');
/** PATH, HOME and what the test gives: nothing of the workspace leaks into the child (no NODE_OPTIONS, no tsx). */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  ...extra,
});

let project: string;
let t: TestServer;
let m: TestMerchant;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'payrail-consumer-'));
  const [server] = await Promise.all([
    startTestServer('pglite', { env: { PAYRAIL_SANDBOX_STEP_MS: '30' } }),
    (async () => {
      for (const pkg of ['protocol', 'sdk']) {
        await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: join(ROOT, 'packages', pkg) });
      }
    })(),
  ]);
  t = server;
  m = await createMerchant(t.url, 'Package Test Traders', '10000.00');
}, 240_000);

afterAll(async () => {
  await t?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

const PROGRAM_BODY = (senderPrefix: string) => `
const payrail = new Payrail({
  baseUrl: process.env.PAYRAIL_URL!,
  apiKey: process.env.PAYRAIL_API_KEY!,
  secretKey: process.env.PAYRAIL_SECRET_KEY!,
});
const walletId = process.env.PAYRAIL_WALLET_ID!;
const payout = await payrail.payouts.initiate({
  senderId: '${senderPrefix}-payout',
  walletId,
  paymentMode: 'IMPS',
  amount: '100.00',
  beneficiary: { name: 'Asha Rao', accountNumber: '100000000001', ifsc: 'SBOX0000001' },
});
const paid = await payrail.payouts.waitFor({ transactionId: payout.transactionId }, { until: 'final', timeoutMs: 30000 });
const collection = await payrail.collections.initiate({ senderId: '${senderPrefix}-collection', amount: '250.00' });
await payrail.sandbox.simulateCollection(collection.txnId, 'SUCCESS');
const collected = await payrail.collections.waitFor({ txnId: collection.txnId }, { timeoutMs: 30000 });
console.log(JSON.stringify({ payout: paid.status, collection: collected.status }));
`;
const untyped = (source: string) => source.replaceAll('!,', ',').replaceAll('!;', ';');

describe('the packed SDK in a new project', () => {
  it('the SDK installs from its tarball alone (offline, nothing linked to the workspace)', async () => {
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
    );
    const { stdout } = await run('ls', [project]);
    const tarballs = stdout.split('\n').filter((f) => f.endsWith('.tgz'));
    expect(tarballs.sort()).toEqual(['payrail-protocol-0.1.0.tgz', 'payrail-sdk-0.1.0.tgz']);
    // The SDK tarball alone: it must need nothing else (no registry, no @payrail/protocol beside it).
    const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', './payrail-sdk-0.1.0.tgz'], {
      cwd: project,
      env: cleanEnv(),
    });
    expect(install.stderr).not.toMatch(/EBADENGINE|ERR!/);
    // Exactly one package came in: the SDK.
    expect((await readdir(join(project, 'node_modules'))).filter((f) => !f.startsWith('.'))).toEqual(['@payrail']);
    expect(await readdir(join(project, 'node_modules/@payrail'))).toEqual(['sdk']);
    const sdkManifest = JSON.parse(await readFile(join(project, 'node_modules/@payrail/sdk/package.json'), 'utf8'));
    // Nothing but Node at run time: the SDK carries what it uses of the protocol.
    expect(sdkManifest.dependencies ?? {}).toEqual({});
    const { stdout: files } = await run('find', ['node_modules/@payrail', '-type', 'f'], { cwd: project });
    const shipped = files.split('\n').filter(Boolean);
    // JavaScript and declarations only: no TypeScript sources.
    expect(shipped.filter((f) => f.includes('/src/') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
    expect(files).toMatch(/sdk\/README\.md/);
    expect(files).toMatch(/sdk\/dist\/cjs\/index\.d\.ts/);
  }, 120_000);

  it('a plain .mjs, a CommonJS and a tsc-checked TypeScript program each pay out and collect to SUCCESS', async () => {
    await writeFile(
      join(project, 'app.mjs'),
      `import { Payrail } from '@payrail/sdk';\n${untyped(PROGRAM_BODY('mjs'))}`,
    );
    await writeFile(
      join(project, 'app.cjs'),
      `const { Payrail } = require('@payrail/sdk');\n(async () => {\n${untyped(PROGRAM_BODY('cjs'))}\n})().catch((err) => { console.error(err); process.exit(1); });\n`,
    );
    await writeFile(
      join(project, 'app.ts'),
      `import { Payrail, PayrailError, type Payout } from '@payrail/sdk';\n${PROGRAM_BODY('ts')}` +
        `const _typed: Payout['status'] = paid.status;\nexport const isError = (e: unknown) => e instanceof PayrailError;\n`,
    );
    // The CommonJS flavour of the declarations (the "require" condition), type-checked too.
    await writeFile(
      join(project, 'check.cts'),
      `import { Payrail, ValidationError } from '@payrail/sdk';\nexport const client: Payrail = new Payrail({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', secretKey: 's' });\nexport const isValidation = (e: unknown): boolean => e instanceof ValidationError;\n`,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          skipLibCheck: false,
          outDir: 'out',
          // Only Node's own types come from the workspace; @payrail/sdk resolves inside this project.
          typeRoots: [join(ROOT, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['app.ts', 'check.cts'],
      }),
    );
    const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project }).catch(
      (err: { stdout: string }) => ({ stdout: err.stdout, failed: true }),
    );
    expect(tsc.stdout).toBe('');

    const env = cleanEnv({
      PAYRAIL_URL: t.url,
      PAYRAIL_API_KEY: m.api_key,
      PAYRAIL_SECRET_KEY: m.secret_key,
      PAYRAIL_WALLET_ID: m.wallet_id,
    });
    const results = await Promise.all(
      ['app.mjs', 'app.cjs', 'out/app.js'].map((file) =>
        run(process.execPath, [file], { cwd: project, env }).then((r) => JSON.parse(r.stdout.trim())),
      ),
    );
    for (const result of results) expect(result).toEqual({ payout: 'SUCCESS', collection: 'SUCCESS' });
  }, 120_000);
});

describe('the packed protocol', () => {
  it('ships ESM, CommonJS and declarations that Node loads by the package name', async () => {
    const { stdout } = await run('tar', ['-tzf', join(project, 'payrail-protocol-0.1.0.tgz')]);
    const files = stdout.split('\n').filter(Boolean).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'package/README.md',
        'package/dist/cjs/index.d.ts',
        'package/dist/cjs/index.js',
        'package/dist/cjs/package.json',
        'package/dist/esm/index.d.ts',
        'package/dist/esm/index.js',
        'package/package.json',
      ]),
    );
    expect(files.filter((f) => f.includes('/src/') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
    // Its dependency (standardwebhooks) comes from the registry, so load the built package in the workspace,
    // with plain node (no source condition): both entry points.
    const load = (code: string, type: 'module' | 'commonjs') =>
      run(process.execPath, [`--input-type=${type}`, '-e', code], { cwd: ROOT, env: cleanEnv() });
    const [esm, cjs] = await Promise.all([
      load(
        "import { formatPaise, Common } from '@payrail/protocol'; console.log(formatPaise(12345n), typeof Common)",
        'module',
      ),
      load(
        "const p = require('@payrail/protocol'); console.log(p.formatPaise(12345n), require.resolve('@payrail/protocol'))",
        'commonjs',
      ),
    ]);
    expect(esm.stdout).toMatch(/^123\.45 /);
    expect(cjs.stdout).toMatch(/^123\.45 .*packages\/protocol\/dist\/cjs\/index\.js/);
  });
});

/** Records every module Node resolves (ESM loader hook) in $MODULE_LOG, so a test sees the real module graph. */
const hook = `data:text/javascript,${encodeURIComponent(`
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(\`
      import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        appendFileSync(process.env.MODULE_LOG, result.url + '\\\\n');
        return result;
      }\`));`)}`;

describe('the compiled CLI', () => {
  it('runs with plain node, and neither --help nor operator commands load the server', async () => {
    const log = join(project, 'modules.log');
    const bin = join(ROOT, 'packages/cli/bin/payrail.js');
    const env = cleanEnv({ MODULE_LOG: log, PAYRAIL_URL: t.url, PAYRAIL_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const help = await run(process.execPath, ['--import', hook, bin, '--help'], { env });
    expect(help.stdout).toContain('Usage: payrail');
    const list = await run(process.execPath, ['--import', hook, bin, 'merchant', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).data.map((x: { merchant_id: string }) => x.merchant_id)).toContain(m.merchant_id);

    const loaded = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    expect(loaded.some((url) => url.includes('/packages/cli/dist/'))).toBe(true);
    expect(loaded.some((url) => url.includes('/packages/sdk/dist/'))).toBe(true);
    expect(loaded.filter((url) => /\/packages\/server\/|\/node_modules\/(fastify|@electric-sql)\//.test(url))).toEqual(
      [],
    );
    // Compiled, not transpiled on load.
    expect(loaded.filter((url) => url.endsWith('.ts') || url.includes('/tsx/'))).toEqual([]);
  }, 60_000);
});

describe('npm start', () => {
  it('runs the compiled server through its launcher, and kill -TERM of the npm process stops it gracefully', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-npm-start-'));
    const port = await freePort();
    // Its own process group, so that the test can see every process it started is gone.
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: cleanEnv({
        PAYRAIL_DATA_DIR: dataDir,
        PORT: String(port),
        LOG_LEVEL: 'silent',
        MODULE_LOG: join(dataDir, 'modules.log'),
        NODE_OPTIONS: `--import ${hook}`,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (c: Buffer) => (output += c.toString()));
    npm.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | string | null>((resolve) =>
      npm.on('exit', (code, sig) => resolve(code ?? sig)),
    );
    const groupAlive = () => {
      try {
        process.kill(-(npm.pid as number), 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(output).toContain('packages/server/bin/payrail-server');
      expect(output).not.toMatch(/tsx/);
      // The launcher's start-only memory settings reach the server process, which is Node itself (exec), npm's child.
      const [server] = (await readFile(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8')).trim().split(' ');
      const argv = (await readFile(`/proc/${server}/cmdline`, 'utf8')).split('\0');
      expect(argv[0]).toMatch(/node$/);
      expect(argv).toContain('--max-semi-space-size=8');
      expect(argv.some((a) => a.endsWith('dist/main.js'))).toBe(true);
      expect((await readFile(`/proc/${server}/environ`, 'utf8')).split('\0')).toContain('MALLOC_ARENA_MAX=2');
      // A server without an SFTP bank does not load the SSH library (its WebAssembly costs ~13 MB resident).
      const loaded = await readFile(join(dataDir, 'modules.log'), 'utf8');
      expect(loaded).toContain('/packages/server/dist/main.js');
      expect(loaded).not.toContain('ssh2');

      process.kill(npm.pid as number, 'SIGTERM');
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
      expect(code).toBe(0);
      for (let i = 0; i < 40 && groupAlive(); i++) await new Promise((r) => setTimeout(r, 250));
      expect(groupAlive()).toBe(false);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      if (groupAlive()) process.kill(-(npm.pid as number), 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
