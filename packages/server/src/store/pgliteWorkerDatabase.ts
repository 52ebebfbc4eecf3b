import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database, Queryable, QueryResult } from './Database.ts';
import { PGLITE_START_PARAMS } from './pgliteDatabase.ts';
import { applyPgliteMemoryProfile } from './pgliteMemoryProfile.ts';

/**
 * The worker thread's code (plain CommonJS, so that it runs alike from the TypeScript sources and from dist/). It
 * owns the PGlite instance and answers `{ id, op, tx?, sql?, params? }` with `{ id, ok, result | error }`.
 * A transaction is PGlite's own `transaction()`, held open until the main thread says commit or rollback; queries
 * outside it wait for it, as they do in process.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.entry);
const txs = new Map();
let db;
const fail = (err) => {
  const e = err || {};
  const error = { message: String(e.message || e) };
  for (const k of ['name', 'code', 'detail', 'constraint', 'table', 'schema', 'column', 'severity', 'hint', 'where'])
    if (e[k] !== undefined) error[k] = e[k];
  return error;
};
const target = (m) => (m.tx ? txs.get(m.tx).t : db);
async function handle(m) {
  switch (m.op) {
    case 'query': {
      const r = await target(m).query(m.sql, m.params);
      return { rows: r.rows, rowCount: r.affectedRows || r.rows.length };
    }
    case 'exec':
      await target(m).exec(m.sql);
      return null;
    case 'begin':
      return new Promise((started, failedToStart) => {
        const entry = { t: null, resolve: null, reject: null, done: null };
        txs.set(m.tx, entry);
        entry.done = db.transaction((t) => new Promise((resolve, reject) => {
          Object.assign(entry, { t, resolve, reject });
          started(null);
        }));
        entry.done.catch((err) => {
          if (entry.t === null) {
            txs.delete(m.tx);
            failedToStart(err);
          }
        });
      });
    case 'commit':
    case 'rollback': {
      const e = txs.get(m.tx);
      txs.delete(m.tx);
      if (m.op === 'commit') e.resolve();
      else e.reject(new Error('rollback'));
      try { await e.done; } catch (err) { if (m.op === 'commit') throw err; }
      return null;
    }
    case 'close':
      await db.close();
      return null;
    default:
      throw new Error('unknown operation ' + m.op);
  }
}
PGlite.create(workerData.dataDir, { parsers: { 20: (v) => BigInt(v) }, startParams: workerData.startParams })
  .then((created) => {
    db = created;
    parentPort.on('message', (m) => {
      handle(m).then(
        (result) => parentPort.postMessage({ id: m.id, ok: true, result }),
        (err) => parentPort.postMessage({ id: m.id, ok: false, error: fail(err) }),
      );
    });
    parentPort.postMessage({ ready: true });
  })
  .catch((err) => parentPort.postMessage({ ready: false, error: fail(err) }));
`;

interface Reply {
  id?: number;
  ok?: boolean;
  ready?: boolean;
  result?: unknown;
  error?: Record<string, unknown> & { message: string };
}

/** The worker's error as an Error carrying the same fields (code, constraint, …) that dbErrors.ts reads. */
function toError(error: Reply['error']): Error {
  return Object.assign(new Error(error?.message ?? 'PGlite worker failed'), error ?? {});
}

/**
 * PGlite in a worker thread of its own, for the server's data directory: PostgreSQL's work then runs on another core
 * than HTTP, JSON and encryption, instead of taking turns with them on the main thread (issue 13: on PGlite the
 * server's one thread was the ceiling at ~1.9 ms of CPU per initiation, 1.1 ms of it PostgreSQL's). The interface and
 * the SQL are the same as in process; each statement costs one message each way.
 */
export async function createPgliteWorkerDatabase(dataDir: string): Promise<Database> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    resourceLimits: applyPgliteMemoryProfile(),
    workerData: { entry, dataDir, startParams: PGLITE_START_PARAMS },
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let nextTx = 1;
  let exited: Error | null = null;
  await new Promise<void>((resolve, reject) => {
    const onReady = (m: Reply) => {
      if (m.ready === undefined) return;
      worker.off('message', onReady);
      if (m.ready) resolve();
      else reject(toError(m.error));
    };
    worker.on('message', onReady);
    worker.once('error', reject);
  });
  worker.on('message', (m: Reply) => {
    if (m.id === undefined) return;
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (!waiting) return;
    if (m.ok) waiting.resolve(m.result);
    else waiting.reject(toError(m.error));
  });
  const onGone = (err: Error) => {
    exited = err;
    for (const w of pending.values()) w.reject(err);
    pending.clear();
  };
  worker.on('error', onGone);
  worker.on('exit', (code) => onGone(new Error(`PGlite worker exited (${code})`)));

  const call = <T>(message: Record<string, unknown>): Promise<T> => {
    if (exited) return Promise.reject(exited);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, ...message });
    });
  };
  const queryable = (tx?: number): Queryable => ({
    query: <R>(sql: string, params?: readonly unknown[]) =>
      call<QueryResult<R>>({ op: 'query', tx, sql, params: params ? [...params] : undefined }),
    exec: (sql: string) => call<void>({ op: 'exec', tx, sql }),
  });

  return {
    engine: 'pglite',
    ...queryable(),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = nextTx++;
      await call({ op: 'begin', tx });
      let result: T;
      try {
        result = await fn(queryable(tx));
      } catch (err) {
        await call({ op: 'rollback', tx });
        throw err;
      }
      await call({ op: 'commit', tx });
      return result;
    },
    async close() {
      if (!exited) await call({ op: 'close' }).catch(() => undefined);
      await worker.terminate();
    },
  };
}
