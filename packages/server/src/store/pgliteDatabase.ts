import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable, QueryResult } from './Database.ts';

const INT8_OID = 20;

/**
 * PostgreSQL's 128 MB default buffer cache is most of an idle PGlite server's memory, and here it caches what the
 * operating system's page cache (data directory) or the in-memory file system already holds: 16 MB keeps the hot
 * pages of an initiation (the rightmost index pages, the wallets) and saves about 110 MB of resident memory with no
 * measurable loss of throughput (docs/internals/performance.md, "PGlite memory").
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

interface PgliteResults {
  rows: unknown[];
  affectedRows?: number;
}

function toResult<R>(result: PgliteResults): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.affectedRows || result.rows.length };
}

/**
 * Creates a new cluster in `dataDir` from a short-lived Node process. Run here, PGlite's initdb would leave this
 * process about 450 MB larger for good (initdb's WebAssembly module and memory stay cached after it finishes).
 */
async function initInChildProcess(dataDir: string): Promise<void> {
  const script =
    'const [entry, dir] = process.argv.slice(1);' +
    'require(entry).PGlite.create(dir).then((db) => db.close()).catch((e) => { console.error(e); process.exit(1); });';
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  await promisify(execFile)(process.execPath, ['-e', script, entry, dataDir], { maxBuffer: 16 * 1024 * 1024 });
}

/** Creates the cluster in `dataDir` (in a short-lived child process) unless there is one. */
export async function ensurePgliteCluster(dataDir: string): Promise<void> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await initInChildProcess(dataDir);
}

export interface PgliteDatabase extends Database {
  /** The whole cluster as a tarball (PGlite's dumpDataDir), loadable with `loadDataDir`. */
  dump(): Promise<Blob>;
}

export interface PgliteOptions {
  /** An in-memory database starts from this saved cluster (PGlite's dumpDataDir) instead of a new one. */
  loadDataDir?: Blob;
}

/**
 * Embedded PostgreSQL (WASM) in a directory, or in memory when `dataDir` is undefined. PGlite is a single
 * connection that serialises transactions itself, which is what keeps the same SQL correct on it.
 */
export async function createPgliteDatabase(
  dataDir: string | undefined,
  options: PgliteOptions = {},
): Promise<PgliteDatabase> {
  if (dataDir !== undefined) await ensurePgliteCluster(dataDir);
  const db = await PGlite.create(dataDir ?? 'memory://', {
    parsers: { [INT8_OID]: (value: string) => BigInt(value) },
    startParams: PGLITE_START_PARAMS,
    ...(dataDir === undefined && options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  });
  return {
    engine: 'pglite',
    query: async (sql, params) => toResult(await db.query(sql, params as unknown[] | undefined)),
    exec: async (sql) => {
      await db.exec(sql);
    },
    transaction: (fn) =>
      db.transaction(async (t) => {
        const tx: Queryable = {
          query: async (sql, params) => toResult(await t.query(sql, params as unknown[] | undefined)),
          exec: async (sql) => {
            await t.exec(sql);
          },
        };
        return fn(tx);
      }),
    dump: () => db.dumpDataDir('none'),
    close: () => db.close(),
  };
}
