import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database, Queryable, QueryResult } from './Database.ts';
import { DatabaseUnavailable } from '../domain/DatabaseUnavailable.ts';

const INT8_OID = 20;

export interface PgOptions {
  url: string;
  /** Schema to work in (tests isolate themselves this way); defaults to the server's search_path. */
  schema?: string;
  maxConnections?: number;
  /** How long to wait for a connection (a new one, or a free one of the pool); 0: no limit. Default 5 s. */
  connectTimeoutMs?: number;
  /**
   * Longest a statement may take: the client gives up after this long when the server does not answer at all (a
   * lost connection, a primary that vanished without closing it), and PostgreSQL cancels the statement itself a
   * little earlier (statement_timeout), so that a merely slow statement keeps its connection. 0: no limit.
   * Default 15 s. Migrations (`exec`) are not bounded.
   */
  statementTimeoutMs?: number;
  /**
   * Parameterised queries as named prepared statements, parsed and planned once per connection (issue 13 measured
   * a lookup at 53 µs prepared against 103 µs unnamed). Default true. Turn off behind a pooler that does not keep
   * them across transactions: PgBouncer before 1.21 in transaction mode (docs/internals/performance.md).
   */
  preparedStatements?: boolean;
  /**
   * Where a connection that the server or the network broke is reported (SQLSTATE and the server's message
   * only: never the error object, which carries the client and its connection parameters).
   */
  logger?: Pick<Logger, 'warn'>;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_CONNECTIONS = 20;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;
/** How much earlier than the client PostgreSQL cancels a statement: 10% of the limit, at most 1 s. */
const serverCancelMargin = (limitMs: number) => Math.min(1_000, Math.floor(limitMs / 10));
/**
 * Idle time after which TCP keepalive probes a pooled connection, so that one whose peer vanished without closing
 * it (the primary's machine lost, a virtual address moved) is noticed and discarded before a request picks it.
 */
const KEEPALIVE_IDLE_MS = 10_000;
/** How many clients that broke on their way from the pool a transaction discards before it gives up. */
const MAX_BROKEN_HANDOVERS = 3;
/** The most distinct statements prepared per connection. */
const MAX_NAMED = 1_000;

/**
 * SQLSTATEs of an unreachable or unusable server: connection exceptions, shutdown, too many connections, timeout,
 * and 25006 (read-only transaction: the connection reached a standby, or a primary being demoted, during a
 * failover; the client is discarded so that the next one goes where the proxy or DNS points now).
 */
const UNAVAILABLE_STATE = /^(08|57P|53)|^57014$|^25006$/;
/** Errors of the socket or of pg's own connection handling (they carry no SQLSTATE). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
const PG_CONNECTION_MESSAGE =
  /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/**
 * SQLSTATEs of a transaction PostgreSQL rolled back to let others go on: 40P01, the victim of a deadlock; 40001, a
 * serialization failure. Nothing the transaction wrote is kept, so it can simply run again from its start.
 */
const VICTIM_STATES = new Set(['40P01', '40001']);
/**
 * How many times a transaction (or a statement outside one) is run when PostgreSQL picks it as such a victim every
 * time. Bounded: with the one lock order (ARCHITECTURE.md) a deadlock is not expected at all, and a transaction
 * that keeps losing should fail with its error rather than hold its caller.
 */
export const MAX_VICTIM_ATTEMPTS = 3;
/**
 * How many times a transaction (or a statement) runs again because a statement of it had a stale plan (below):
 * one per distinct statement it runs that a migration changed, at most.
 */
const MAX_STALE_PLANS = 16;
/** Before the next attempt: a few milliseconds, random, so that two victims of one conflict do not meet again. */
const victimPause = (attempt: number) => sleep(Math.round((5 + Math.random() * 20) * attempt));

/**
 * A named prepared statement whose result columns a migration changed (`SELECT *` or `RETURNING *` over a table
 * that gained a column, a function returning a table's row type): PostgreSQL re-plans a statement after DDL, but
 * refuses one whose result type would change, with 0A000 and this message, on every later run on that connection.
 * Nothing of the statement happened, so, like a victim, it runs again, under a new name (see `renamed`): an
 * instance left running while a newer build migrates the database goes on serving (docs/operator/upgrading.md).
 */
const STALE_PLAN_STATE = '0A000';
const STALE_PLAN_MESSAGE = /^cached plan must not change result type/;
const isStalePlan = (err: unknown) =>
  err instanceof pg.DatabaseError && err.code === STALE_PLAN_STATE && STALE_PLAN_MESSAGE.test(err.message);

/**
 * The same staleness one level down: a PL/pgSQL function returning a table's rows (`RETURNS SETOF payouts`) called
 * through another function's plan cached before the table gained a column fails once per connection with 42804
 * ("Number of returned columns (35) does not match expected column count (36)"), and keeps failing on that
 * connection: the calling function's plan does not depend on the table. So the connection is discarded (pg-pool
 * discards one whose statement failed outside a transaction anyway; a transaction's is discarded below) and the
 * statement runs again on another, at most once per connection of the pool: a function that is really wrong
 * keeps failing, and its error goes to the caller.
 */
const STALE_FUNCTION_STATE = '42804';
const STALE_FUNCTION_MESSAGE = /^structure of query does not match function result type/;
const isStaleFunction = (err: unknown) =>
  err instanceof pg.DatabaseError && err.code === STALE_FUNCTION_STATE && STALE_FUNCTION_MESSAGE.test(err.message);

/** The SQLSTATE of an error after which a transaction or statement runs again: a victim's, or a stale plan's. */
const victimState = (err: unknown): string | null => {
  const code = err instanceof pg.DatabaseError ? err.code : undefined;
  if (code !== undefined && VICTIM_STATES.has(code)) return code;
  if (isStalePlan(err)) return STALE_PLAN_STATE;
  return isStaleFunction(err) ? STALE_FUNCTION_STATE : null;
};

function isUnavailable(err: unknown): boolean {
  if (err instanceof pg.DatabaseError) return UNAVAILABLE_STATE.test(err.code ?? '');
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (typeof code === 'string' && SOCKET_CODES.has(code)) || PG_CONNECTION_MESSAGE.test(err.message);
}

/** Re-throws a connection-level failure as DatabaseUnavailable; every other error (constraint, …) as it is. */
function classify(err: unknown): unknown {
  return isUnavailable(err) ? new DatabaseUnavailable(err) : err;
}

/** PostgreSQL through a `pg` pool; several Payrail instances may share one database. */
export function createPgDatabase(options: PgOptions): Database {
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format ?? 'text'),
  };
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const queryTimeout = statementTimeout > 0 ? statementTimeout : undefined;
  const serverTimeout = statementTimeout > 0 ? Math.max(1, statementTimeout - serverCancelMargin(statementTimeout)) : 0;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    types: types as pg.CustomTypesConfig,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(serverTimeout > 0 ? { statement_timeout: serverTimeout } : {}),
    // A peer that vanished without closing (a partition) is noticed by the query timeout; keepalive frees idle ones.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  /**
   * Clients whose connection broke, with the error. A `pg` client emits 'error' when its backend ends the session
   * (a FATAL such as 57P01 when the server is shut down, the backend is terminated or the postmaster dies) or the
   * socket fails, and an 'error' event nobody listens to ends the process. The pool listens while a client is
   * idle, a caller while it holds one, but not in between: when a query's last answer and the backend's FATAL
   * arrive in one read, the pool hands the client to a waiting transaction and the FATAL is emitted before the
   * transaction's code runs again. So every client gets a listener of its own for its whole life, here.
   */
  const lost = new WeakMap<pg.ClientBase, Error>();
  pool.on('connect', (client) => {
    client.on('error', (err: Error) => {
      // One loss is often reported twice (the FATAL, then the closed socket): the first says why.
      if (lost.has(client)) return;
      lost.set(client, err);
      const code = (err as { code?: unknown }).code;
      options.logger?.warn(
        { code: typeof code === 'string' ? code : undefined, reason: err.message },
        'database connection lost; the client is discarded',
      );
    });
  });
  // An idle client that breaks is removed by the pool, which then emits 'error' too: already logged above, and
  // without a listener here that event would end the process.
  pool.on('error', () => {});
  const prepared = options.preparedStatements ?? true;
  /**
   * The statement's name: the same text always gets the same name, on every connection. Our SQL texts are fixed
   * (values are always parameters); past MAX_NAMED texts anyway, new ones run unnamed rather than pile up on
   * every connection of the server.
   */
  const names = new Map<string, string>();
  /**
   * A statement whose plan went stale gets a new name (`p_…_2`, …) on every connection of the pool at once: the
   * retry, and each later run on any connection, prepares it anew, so each stale statement fails once per
   * process rather than once per connection. The old one is left on the connections that prepared it (one
   * statement each; they go with the connection). Only when the name that failed is still the current one, so
   * that several runs failing at once rename it once.
   */
  let renames = 0;
  const renamed = (sql: string, stale: string) => {
    if (names.get(sql) === stale) names.set(sql, `${stale.replace(/_\d+$/, '')}_${++renames}`);
  };
  const nameOf = (sql: string) => {
    let name = names.get(sql);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `p_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
      names.set(sql, name);
    }
    return name;
  };

  const run = async <R>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly unknown[] | undefined,
    timeout: number | undefined,
  ) => {
    try {
      // query_timeout per query (pg reads it from the config object; its typings do not list it).
      const name = prepared && params !== undefined ? nameOf(sql) : undefined;
      const config = { text: sql, values: params as unknown[] | undefined, query_timeout: timeout, name };
      try {
        const result = await client.query(config as pg.QueryConfig);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 } satisfies QueryResult<R>;
      } catch (err) {
        if (name !== undefined && isStalePlan(err)) renamed(sql, name);
        throw err;
      }
    } catch (err) {
      throw classify(err);
    }
  };

  /**
   * A client from the pool for a transaction. One that broke on its way from the pool (see `lost`) is discarded
   * and another taken: nothing was sent on it yet, so this is safe whatever the transaction does.
   */
  const acquire = async (): Promise<pg.PoolClient> => {
    for (let handovers = 0; ; handovers++) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw classify(err);
      }
      const broke = lost.get(client);
      if (broke === undefined) return client;
      client.release(broke);
      if (handovers + 1 >= MAX_BROKEN_HANDOVERS) throw new DatabaseUnavailable(broke);
    }
  };

  /** One attempt at a transaction; `victim` notes a statement of it that PostgreSQL failed as a victim. */
  const transactionOnce = async <T>(
    fn: (tx: Queryable) => Promise<T>,
    victim: { state: string | null },
  ): Promise<T> => {
    const client = await acquire();
    // A reason to discard the client rather than return it to the pool; a connection lost while the client is
    // held is in `lost` (its own listener), and reaches the caller through the next query.
    let broken: unknown = null;
    const inTx = async <R>(sql: string, params: readonly unknown[] | undefined, timeout: number | undefined) => {
      try {
        return await run<R>(client, sql, params, timeout);
      } catch (err) {
        victim.state ??= victimState(err);
        throw err;
      }
    };
    try {
      await run(client, 'BEGIN', undefined, queryTimeout);
      const tx: Queryable = {
        query: (sql, params) => inTx(sql, params, queryTimeout),
        exec: async (sql) => {
          await inTx(sql, undefined, undefined);
        },
      };
      const result = await fn(tx);
      await inTx('COMMIT', undefined, queryTimeout);
      return result;
    } catch (err) {
      // After a lost connection or a client-side timeout the session is in an unknown state: do not wait on a
      // ROLLBACK there, discard the client (the server rolls back when the connection closes).
      if (!lost.has(client) && !(err instanceof DatabaseUnavailable)) {
        await run(client, 'ROLLBACK', undefined, queryTimeout).catch((rollbackErr: unknown) => {
          broken = rollbackErr;
        });
        // Its function plans went stale (STALE_FUNCTION_STATE): a new connection plans them anew.
        if (victim.state === STALE_FUNCTION_STATE) broken ??= err;
      } else {
        broken ??= err;
      }
      throw err;
    } finally {
      const reason = lost.get(client) ?? broken;
      client.release(reason === null ? undefined : (reason as Error));
    }
  };

  /**
   * Runs `attempt` again while PostgreSQL rolls it back as a deadlock or serialization victim (VICTIM_STATES), at
   * most MAX_VICTIM_ATTEMPTS times, and says so in the log: the SQLSTATE and the attempt, never a statement or a
   * value. Safe for every transaction and statement here, because such a rollback leaves nothing of the attempt in
   * the database, and a transaction's function only reads and writes through `tx` and builds its result: no
   * connector is called inside a transaction (ARCHITECTURE.md), so running the function again is running it for the
   * first time. (What it counts in memory, the metrics, counts the attempt that was rolled back too, as with any
   * rolled-back transaction.) A statement whose prepared plan a migration made stale (isStalePlan) runs again the
   * same way, under its new name, without a pause.
   */
  const retryingVictims = async <T>(what: string, attempt: (victim: { state: string | null }) => Promise<T>) => {
    // Stale plans are counted apart: a transaction may meet several statements a migration changed, one per run
    // (each is renamed when it fails, so it never fails again in this process), while victims stay bounded.
    let stale = 0;
    let staleFunctions = 0;
    // Every connection of the pool may have prepared the function's caller before the migration.
    const maxStaleFunctions = (options.maxConnections ?? DEFAULT_MAX_CONNECTIONS) + 1;
    for (let n = 1; ; n++) {
      // A statement of the attempt that failed as a victim, even when the error that ends the attempt is another
      // (a caller that caught it and went on gets 25P02, "current transaction is aborted", next).
      const victim = { state: null as string | null };
      try {
        return await attempt(victim);
      } catch (err) {
        // Never after a lost connection: a COMMIT sent on it may have been kept.
        const state = err instanceof DatabaseUnavailable ? null : (victimState(err) ?? victim.state);
        if (state === STALE_PLAN_STATE && stale < MAX_STALE_PLANS) {
          stale++;
          n--;
          options.logger?.warn(
            { code: state, attempt: stale, maxAttempts: MAX_STALE_PLANS },
            `${what} failed: a migration changed a prepared statement's result columns; preparing it again`,
          );
          continue;
        }
        if (state === STALE_FUNCTION_STATE) {
          if (++staleFunctions > maxStaleFunctions) throw err;
          n--;
          options.logger?.warn(
            { code: state, attempt: staleFunctions, maxAttempts: maxStaleFunctions },
            `${what} failed: a migration changed the rows a function returns; running it again`,
          );
          continue;
        }
        if (state === null || n >= MAX_VICTIM_ATTEMPTS) throw err;
        options.logger?.warn(
          { code: state, attempt: n, maxAttempts: MAX_VICTIM_ATTEMPTS },
          `${what} rolled back by PostgreSQL (deadlock or serialization victim); running it again`,
        );
        await victimPause(n);
      }
    }
  };

  return {
    engine: 'postgres',
    query: (sql, params) => retryingVictims('statement', () => run(pool, sql, params, queryTimeout)),
    exec: async (sql) => {
      await run(pool, sql, undefined, undefined);
    },
    transaction: (fn) => retryingVictims('transaction', (victim) => transactionOnce(fn, victim)),
    close: () => pool.end(),
  };
}
