import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export { admin, createMerchant, http, type TestMerchant } from '../../server/test/support/merchantClient.ts';
export { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../../server/test/support/testServer.ts';

/**
 * Node arguments that run the CLI as installed: its compiled form (`bin/payrail.js` → `dist/`), which the tests'
 * global setup (packages/server/test/globalSetup.ts) has just built from the sources. Through tsx every run cost
 * about 0.4 s more (0.6 s against 0.2 s for `--help`), and the CLI tests start a few hundred.
 */
export const CLI_ARGS = [fileURLToPath(new URL('../bin/payrail.js', import.meta.url))];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (when it is). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** stderr parsed as JSON (when it is): the error of a --json command. */
  errJson: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The environment of a child CLI: nothing of ours inherited, only what the test gives. */
export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYRAIL_') && k !== 'DATABASE_URL' && k !== 'PORT' && k !== 'HOST') env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Runs the CLI (`payrail …`, from its sources) as a child process. */
export function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
  options: {
    cwd?: string;
    onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
    /** Written to the child's standard input, which is then closed (e.g. `--password-stdin`). */
    stdin?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], { env: cleanEnv(env), cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      options.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr, json: parseJson(stdout), errJson: parseJson(stderr) });
    });
  });
}
