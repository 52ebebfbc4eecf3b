import { createHash } from 'node:crypto';
import pg from 'pg';
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
   * Longest a statement may run: PostgreSQL cancels it (statement_timeout), and the client gives up 2 s later
   * when the server does not answer at all (a lost connection). 0: no limit. Default 15 s. Migrations
   * (`exec`) are not bounded.
   */
  statementTimeoutMs?: number;
  /**
   * Parameterised queries as named prepared statements, parsed and planned once per connection (issue 13 measured
   * a lookup at 53 µs prepared against 103 µs unnamed). Default true. Turn off behind a pooler that does not keep
   * them across transactions: PgBouncer before 1.21 in transaction mode (docs/performance.md).
   */
  preparedStatements?: boolean;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;
/** Extra time the client waits beyond statement_timeout, so that the server's own cancel normally comes first. */
const CLIENT_GRACE_MS = 2_000;
/** The most distinct statements prepared per connection. */
const MAX_NAMED = 1_000;

/** SQLSTATEs of an unreachable or unusable server: connection exceptions, shutdown, too many connections, timeout. */
const UNAVAILABLE_STATE = /^(08|57P|53)|^57014$/;
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
  const queryTimeout = statementTimeout > 0 ? statementTimeout + CLIENT_GRACE_MS : undefined;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 20,
    types: types as pg.CustomTypesConfig,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
    // A peer that vanished without closing (a partition) is noticed by the query timeout; keepalive frees idle ones.
    keepAlive: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const prepared = options.preparedStatements ?? true;
  /**
   * The statement's name: the same text always gets the same name, on every connection. Our SQL texts are fixed
   * (values are always parameters); past MAX_NAMED texts anyway, new ones run unnamed rather than pile up on
   * every connection of the server.
   */
  const names = new Map<string, string>();
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
      const result = await client.query(config as pg.QueryConfig);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 } satisfies QueryResult<R>;
    } catch (err) {
      throw classify(err);
    }
  };

  return {
    engine: 'postgres',
    query: (sql, params) => run(pool, sql, params, queryTimeout),
    exec: async (sql) => {
      await run(pool, sql, undefined, undefined);
    },
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw classify(err);
      }
      // A checked-out client whose connection drops emits 'error'; without a listener that would end the process.
      // The failure reaches the caller through its next query instead.
      let broken: unknown = null;
      const onError = (err: unknown) => {
        broken = err;
      };
      client.on('error', onError);
      try {
        await run(client, 'BEGIN', undefined, queryTimeout);
        const tx: Queryable = {
          query: (sql, params) => run(client, sql, params, queryTimeout),
          exec: async (sql) => {
            await run(client, sql, undefined, undefined);
          },
        };
        const result = await fn(tx);
        await run(client, 'COMMIT', undefined, queryTimeout);
        return result;
      } catch (err) {
        // After a lost connection or a client-side timeout the session is in an unknown state: do not wait on a
        // ROLLBACK there, discard the client (the server rolls back when the connection closes).
        if (broken === null && !(err instanceof DatabaseUnavailable)) {
          await run(client, 'ROLLBACK', undefined, queryTimeout).catch((rollbackErr: unknown) => {
            broken = rollbackErr;
          });
        } else {
          broken ??= err;
        }
        throw err;
      } finally {
        client.removeListener('error', onError);
        client.release(broken === null ? undefined : (broken as Error));
      }
    },
    close: () => pool.end(),
  };
}
