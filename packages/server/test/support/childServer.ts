import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** The repository root, where `npm start` runs. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  proc: ChildProcess;
  pid: number;
  url: string;
  output(): { stdout: string; stderr: string };
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Waits until GET /healthz answers 200, or throws (with the process output) when it exits or times out. */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGKILL if still running, and waits for the exit. */
  kill(): Promise<Exit>;
}

/**
 * Starts the real server from its sources (`node --conditions=@payrail/source --import tsx …/src/main.ts` in the repository
 * root), with a clean environment: only PATH, HOME and `env`.
 */
export function spawnServer(env: Record<string, string>): ChildServer {
  const port = env.PORT as string;
  const proc = spawn(
    process.execPath,
    ['--conditions=@payrail/source', '--import', 'tsx', 'packages/server/src/main.ts'],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    proc.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const output = () => ({ stdout, stderr });

  return {
    proc,
    pid: proc.pid as number,
    url,
    output,
    exited,
    async ready(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (done) throw new Error(`server exited before it was ready: ${JSON.stringify(output())}`);
        try {
          const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
          if (res.status === 200) return;
        } catch {
          // not listening yet
        }
        await sleep(100);
      }
      proc.kill('SIGKILL');
      throw new Error(`server not ready within ${timeoutMs} ms: ${JSON.stringify(output())}`);
    },
    async kill() {
      if (!done) proc.kill('SIGKILL');
      return exited;
    },
  };
}

/** Resolves with the exit, or rejects when the process is still running after `ms`. */
export async function exitWithin(child: ChildServer, ms: number): Promise<Exit> {
  const timer = new AbortController();
  const timeout = sleep(ms, undefined, { signal: timer.signal }).then(() => {
    throw new Error(`process ${child.pid} still running after ${ms} ms: ${JSON.stringify(child.output())}`);
  });
  try {
    return await Promise.race([child.exited, timeout]);
  } finally {
    timer.abort();
  }
}
