import { spawn, type ChildProcess } from 'node:child_process';
import { request, type Agent, type OutgoingHttpHeaders } from 'node:http';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Helpers shared by the benchmark's orchestrator and its child processes. */

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request over `agent`'s kept-alive connections: the status and the whole body. Plain `http.request`, not
 * `fetch` (undici's WHATWG layers cost more per request): the load generators share the machine's cores with the
 * server, so their CPU is time the server does not get.
 */
export function send(
  agent: Agent,
  url: URL,
  r: { method: string; path: string; headers: OutgoingHttpHeaders; body?: string | Buffer },
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, method: r.method, path: r.path, headers: r.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export interface Child {
  process: ChildProcess;
  pid: number;
  output: string[];
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>;
}

/** A Node process (or `command`) from the repository root, its output kept for error messages. */
function spawnNode(argv: string[], env: NodeJS.ProcessEnv, ipc = false, command = process.execPath): Child {
  const child = spawn(command, argv, {
    cwd: REPO_ROOT,
    env,
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  // BENCH_SERVER_OUTPUT: a file that gets every spawned process's output as well (--trace-gc and the like).
  const copy = process.env.BENCH_SERVER_OUTPUT;
  const keep = (c: Buffer) => {
    output.push(c.toString());
    if (copy) appendFileSync(copy, c);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return { process: child, pid: child.pid as number, output, exited };
}

/** Runs a TypeScript entry point in a new Node process through tsx, from the repository root. */
export function spawnTs(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeFlags: string[] = [],
  ipc = false,
): Child {
  return spawnNode([...nodeFlags, '--conditions=@payrail/source', '--import', 'tsx', entry, ...args], env, ipc);
}

let built: Promise<void> | undefined;

/**
 * Builds the server as `npm start` does (scripts/build.mjs: protocol and server to dist/), once per benchmark run,
 * so that the server measured is the compiled JavaScript operators run, not the TypeScript sources through tsx.
 */
export function buildServer(): Promise<void> {
  built ??= new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/build.mjs', '--no-types', 'protocol', 'server'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited with ${code}`))));
  });
  return built;
}

/**
 * The Payrail server as `npm start` runs it: its launcher (packages/server/bin/payrail-server, which sets the memory
 * settings of a process's start) and the compiled JavaScript; call buildServer() first. `nodeFlags` reach Node through
 * the launcher's PAYRAIL_NODE_FLAGS.
 */
export function spawnServer(env: NodeJS.ProcessEnv, nodeFlags: string[] = []): Child {
  const flags = [env.PAYRAIL_NODE_FLAGS, ...nodeFlags].filter(Boolean).join(' ');
  return spawnNode(['packages/server/bin/payrail-server'], { ...env, PAYRAIL_NODE_FLAGS: flags }, false, 'sh');
}

/** Polls `url` until it answers 200. */
export async function waitHealthy(url: string, child: Child, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void child.exited.then(() => (done = true));
  for (;;) {
    if (done) throw new Error(`process exited during start:\n${child.output.join('')}`);
    const res = await fetch(url).catch(() => null);
    if (res?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export async function stopChild(child: Child, signal: NodeJS.Signals = 'SIGTERM', graceMs = 20_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill(signal);
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/** Resident set size of a process in bytes (Linux), or null when it cannot be read. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** User + system CPU time of a process in milliseconds (Linux), or null. */
export function cpuMsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // After "pid (comm) ", field 3 is state; utime and stime are fields 14 and 15 of the full line.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / 100 : null;
  } catch {
    return null;
  }
}

/** The result every load generator in the benchmark reports (latencies in milliseconds). */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  total: number;
  /** Responses that were not the expected success, plus connection errors. */
  failures: number;
  detail?: Record<string, unknown>;
}

/** One measured run as a load generator reports it: every response's latency, so runs can be merged exactly. */
export interface RawRun {
  seconds: number;
  /** Milliseconds, one per completed request. */
  latencies: number[];
  failures: number;
  /** CPU time of the reporting process during the run (meaningful where the database runs inside it). */
  cpuMs?: number;
  detail?: Record<string, unknown>;
}

/** Merges runs (e.g. the rounds of one scenario) into one result. */
export function summarize(runs: RawRun[]): LoadResult {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    rps: latencies.length / Math.max(seconds, 1e-9),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((sum, v) => sum + v, 0) / Math.max(1, latencies.length),
    total: latencies.length,
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
    detail: { rounds: runs.map((r) => Math.round(r.latencies.length / r.seconds)) },
  };
}

/**
 * A long-lived child process that takes requests over IPC (`{ id, ...request }`) and answers `{ id, result }` or
 * `{ id, error }`; it announces itself with `{ ready: true }`.
 */
export class IpcChild<Req, Res> {
  private readonly pending = new Map<number, { resolve: (r: Res) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  readonly ready: Promise<void>;

  constructor(readonly child: Child) {
    let markReady: () => void = () => undefined;
    let failReady: (e: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    child.process.on('message', (m: { ready?: boolean; id?: number; result?: Res; error?: string }) => {
      if (m.ready) return markReady();
      const waiter = this.pending.get(m.id as number);
      this.pending.delete(m.id as number);
      if (m.error) waiter?.reject(new Error(m.error));
      else waiter?.resolve(m.result as Res);
    });
    void child.exited.then((code) => {
      const err = new Error(
        `${child.process.spawnargs.join(' ')} exited (${code}):\n${child.output.join('').slice(-4000)}`,
      );
      failReady(err);
      for (const waiter of this.pending.values()) waiter.reject(err);
    });
  }

  async request(req: Req): Promise<Res> {
    await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.process.send({ ...req, id });
    });
  }

  async stop(): Promise<void> {
    if (this.child.process.connected) this.child.process.disconnect();
    await stopChild(this.child);
  }
}

/** The child side of IpcChild: serves requests one at a time; exits when the parent goes away. */
export function serveIpc<Req, Res>(handle: (req: Req) => Promise<Res>): void {
  if (!process.send) throw new Error('this process must be started with an IPC channel');
  let queue = Promise.resolve();
  process.on('message', (message: Req & { id: number }) => {
    queue = queue.then(async () => {
      try {
        process.send?.({ id: message.id, result: await handle(message) });
      } catch (err) {
        process.send?.({ id: message.id, error: (err as Error).stack ?? String(err) });
      }
    });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}

/** Percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/** The payout plaintext every initiation in the benchmark sends (sandbox success account, 1.00 by IMPS). */
export function benchPayout(walletId: string, senderId: string, callbackUrl?: string) {
  return {
    ...(callbackUrl ? { callback_url: callbackUrl } : {}),
    sender_id: senderId,
    wallet_id: walletId,
    amount: '1.00',
    payment_mode: 'IMPS',
    remarks: 'bench',
    beneficiary: {
      beneficiary_name: 'Bench Beneficiary',
      beneficiary_ifsc: 'SBOX0000001',
      beneficiary_acc_number: '100000000001',
    },
  };
}
