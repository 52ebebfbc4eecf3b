import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decryptJsonObject, istDay, istDayStart } from '@payrail/protocol';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/store/openDatabase.ts';
import { adminCall } from './benchMerchant.ts';
import { freshStorage } from './benchServer.ts';
import { buildServer, freePort, rssOf, spawnServer, stopChild, waitHealthy, type Child } from './common.ts';

/**
 * Flat at scale (BENCH_ONLY=scale, issue 35): the calls operators make every day, timed in alternating rounds on three
 * databases side by side: an empty one (merchants only), a small one (BENCH_SCALE_BASE payouts, default 10,000) and
 * one loaded with BENCH_SCALE_PAYOUTS (default 1,000,000) payouts spread over the 90 days before now, with their
 * ledger entries, status history, webhook deliveries and attempts, and collections (a tenth as many) with their
 * credits. On PostgreSQL (BENCH_DATABASE_URL) each database is a schema of its own, dropped at the end, unless
 * BENCH_SCALE_KEEP=1 (its URL is printed). On PGlite (BENCH_ENGINES=pglite; default 200,000 payouts) each is a data
 * directory of its own server: the server holds its directory alone, so it makes the merchants, stops, the bench
 * opens the directory through the server's own openDatabase() and writes the same statements, and the server starts
 * again on it. BENCH_SCALE_DATABASE_URL instead points the loaded side at an existing
 * database (a URL whose search_path holds Payrail's tables: a kept schema, or an operator's copy), which is
 * migrated by the server's start as any upgrade would, never loaded and never dropped; its statement is the wallet
 * with the most entries on the day timed.
 *
 * How rows are written: set-based `INSERT … SELECT generate_series`, one transaction per day, with every trigger
 * and constraint of the schema in force (no session_replication_role): the ledger trigger moves each wallet's
 * balance and fills balance_after entry by entry, the payout and collection guards check every insert and every
 * transition, and the history trigger writes each status change into transaction_events, as they do for the
 * server's own statements. The rows are those of an unpriced merchant's payouts after the worker has settled them:
 * payout (INITIATED) and its payout_debit entry (what payout_open writes, its job already done and deleted), moved
 * to PROCESSING, then SUCCESS (97 %) or FAILED, refund entry and REFUNDED (3 %); one delivered webhook per status
 * event the merchant hears (processing, then success, or failed and refunded) with one attempt each, and one in 500
 * payouts' final event failed after 8 attempts. The first wallet takes 40 % of the payouts (the busiest); the second
 * the first 100 of each day, whatever the total, so that its day's statement is the same size on every database. Ids are `PT`/`CT`/`EV` + a ULID of the row's created_at, as the
 * server makes them. Left out: allowance counters (merchant_usage: one row per merchant and day, read by none of
 * the calls timed) and settlement queues. Calling payout_open_checked() a million times would write the same rows
 * at about a tenth of the speed.
 *
 * Besides the console's calls, the merchant API's status (by sender_id, of a payout 90 days old) and balance, with
 * the token of the busiest wallet's merchant. The empty database has no such payout: its status row times the
 * "not found" answer (the same index probe, finding nothing), so loaded ÷ small is that row's ratio to read.
 */

const DAY_MS = 86_400_000;
const DAYS = 90;
const MERCHANTS = 20;
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 15);

/** A call's median and minimum of its timed rounds, in ms. */
export interface Timing {
  median: number;
  min: number;
}

export interface ScaleCall {
  name: string;
  empty: Timing | null;
  small: Timing | null;
  loaded: Timing | null;
}

export interface ScaleResult {
  engine: 'pglite' | 'postgres';
  payouts: number;
  smallPayouts: number;
  loadMs: number | null;
  sizes: string;
  /** PGlite: the loaded server's data directory, in bytes. */
  dataDirBytes: number | null;
  /** Each server's resident memory: the largest sample during the timed rounds, and after them. */
  rss: { label: string; peakMb: number; afterMb: number }[];
  calls: ScaleCall[];
}

/** Crockford base32 of an int8, `len` characters (as ulid's encodeTime), for ids made in SQL. */
const B32_FUNCTION = `CREATE OR REPLACE FUNCTION pg_temp.scale_b32(v int8, len int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((v >> (5 * (len - 1 - i))) & 31)::int + 1, 1), ''
                    ORDER BY i)
    FROM generate_series(0, len - 1) AS i $$`;

/**
 * One day's payouts and what follows them. 'day' statements take the wallets, their merchants, the day's start, the
 * count and the offset of the day's numbers; 'payouts' and 'collections' ones the day's id bounds.
 */
const DAY_STEPS: [string, 'day' | 'payouts' | 'collections'][] = [
  [
    `WITH p AS (
     INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
       beneficiary_account, beneficiary_ifsc, bank_name, scheme, status, status_message, rail, ist_day, ist_month,
       created_at, updated_at)
     SELECT 'PT' || pg_temp.scale_b32(u.ms, 10) || '000' || pg_temp.scale_b32(g, 13), ($2::text[])[u.k],
            ($1::text[])[u.k], 'scale-' || $6 || '-' || g, 10000 + (g * 7919) % 990000, (ARRAY['IMPS', 'NEFT', 'RTGS'])[1 + g % 3],
            'Asha Rao', '1234567890' || lpad((g % 100)::text, 2, '0'), 'HDFC0001234', 'HDFC Bank', 'v2', 'INITIATED',
            'Transaction initiated', 'sandbox', $7, substr($7, 1, 7), t.at, t.at
       FROM generate_series($5::int8 + 1, $5::int8 + $4) AS g
      CROSS JOIN LATERAL (SELECT $3::timestamptz + make_interval(secs => ((g - $5)::float8 / $4) * 86399) AS at) t
      CROSS JOIN LATERAL (SELECT floor(extract(epoch FROM t.at) * 1000)::int8 AS ms,
                                 CASE WHEN g - $5 <= 100 THEN 2 WHEN g % 10 < 4 THEN 1
                                      ELSE 3 + (g % (cardinality($1::text[]) - 2))::int END AS k) u
     RETURNING id, wallet_id, amount, created_at)
   INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
   SELECT wallet_id, 'payout_debit', -amount, 0, id, created_at FROM p ORDER BY id`,
    'day',
  ],
  [
    `UPDATE payouts SET status = 'PROCESSING', status_message = 'Transaction processing', submitted_at = created_at,
          submit_attempts = 1, updated_at = created_at + interval '1 second'
    WHERE id >= $1 AND id < $2 AND sender_id LIKE $3`,
    'payouts',
  ],
  [
    `UPDATE payouts SET status = CASE WHEN abs(hashtext(id)) % 100 < 3 THEN 'FAILED' ELSE 'SUCCESS' END,
          status_message = CASE WHEN abs(hashtext(id)) % 100 < 3 THEN 'Beneficiary bank offline'
                                ELSE 'Transaction successful' END,
          failure_reason = CASE WHEN abs(hashtext(id)) % 100 < 3 THEN 'Beneficiary bank offline' END,
          utr = CASE WHEN abs(hashtext(id)) % 100 < 3 THEN '' ELSE 'UTR' || substr(id, 13, 12) END,
          updated_at = created_at + interval '2 seconds'
    WHERE id >= $1 AND id < $2 AND sender_id LIKE $3`,
    'payouts',
  ],
  [
    `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
   SELECT wallet_id, 'payout_refund', amount, 0, id, created_at + interval '3 seconds'
     FROM payouts WHERE id >= $1 AND id < $2 AND status = 'FAILED' AND sender_id LIKE $3 ORDER BY id`,
    'payouts',
  ],
  [
    `UPDATE payouts SET status = 'REFUNDED', status_message = 'Refunded', updated_at = created_at + interval '3 seconds'
    WHERE id >= $1 AND id < $2 AND status = 'FAILED' AND sender_id LIKE $3`,
    'payouts',
  ],
  [
    `WITH d AS (
     INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, state, attempts,
       next_attempt_at, last_status, last_error, created_at, delivered_at)
     SELECT 'EV' || substr(p.id, 3, 10) || lpad(e.n::text, 3, '0') || substr(p.id, 16), p.merchant_id, p.id, e.type,
            'https://merchant.example/hooks', 'v2', repeat('x', 900), s.state, s.attempts, p.created_at + e.after,
            CASE WHEN s.state = 'delivered' THEN 200 ELSE 503 END,
            CASE WHEN s.state = 'failed' THEN 'HTTP 503' END, p.created_at + e.after,
            CASE WHEN s.state = 'delivered' THEN p.created_at + e.after END
       FROM payouts p
      CROSS JOIN LATERAL (VALUES (1, 'payout.processing', interval '1 second'),
                                 (2, CASE WHEN p.status = 'SUCCESS' THEN 'payout.success' ELSE 'payout.failed' END,
                                  interval '2 seconds'),
                                 (3, CASE WHEN p.status = 'REFUNDED' THEN 'payout.refunded' END, interval '3 seconds'))
                         AS e (n, type, after)
      CROSS JOIN LATERAL (SELECT CASE WHEN e.n > 1 AND abs(hashtext(p.id)) % 500 = 7 THEN 'failed' ELSE 'delivered'
                                 END AS state) s0
      CROSS JOIN LATERAL (SELECT s0.state, CASE WHEN s0.state = 'failed' THEN 8 ELSE 1 END AS attempts) s
      WHERE p.id >= $1 AND p.id < $2 AND p.sender_id LIKE $3 AND e.type IS NOT NULL
      ORDER BY p.id, e.n
     RETURNING id, attempts, created_at, state)
   INSERT INTO webhook_attempts (delivery_id, attempted_at, duration_ms, http_status, error)
   SELECT d.id, d.created_at, 40, CASE WHEN d.state = 'failed' THEN 503 ELSE 200 END,
          CASE WHEN d.state = 'failed' THEN 'HTTP 503' END
     FROM d CROSS JOIN LATERAL generate_series(1, d.attempts) AS a`,
    'payouts',
  ],
  [
    `WITH c AS (
     INSERT INTO collections (id, merchant_id, wallet_id, sender_id, amount, payment_mode, scheme, status, utr,
       page_token, expires_at, created_at, updated_at)
     SELECT 'CT' || pg_temp.scale_b32(u.ms, 10) || '000' || pg_temp.scale_b32(g, 13), ($2::text[])[u.k],
            ($1::text[])[u.k], 'scale-c-' || $6 || '-' || g, 50000 + (g * 104729) % 500000, 'Intent', 'v2', 'INITIATED',
            'UPI' || g, md5('scale-c-' || $6 || '-' || g), t.at + interval '15 minutes', t.at, t.at
       FROM generate_series($5::int8 + 1, $5::int8 + ($4 / 10)) AS g
      CROSS JOIN LATERAL (SELECT $3::timestamptz + make_interval(secs => ((g - $5)::float8 / ($4 / 10)) * 86399) AS at) t
      CROSS JOIN LATERAL (SELECT floor(extract(epoch FROM t.at) * 1000)::int8 AS ms,
                                 CASE WHEN g % 10 < 4 THEN 1 ELSE 3 + (g % (cardinality($1::text[]) - 2))::int END AS k) u
     RETURNING id, wallet_id, amount, created_at)
   INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, collection_id, created_at)
   SELECT wallet_id, 'collection_credit', amount, 0, id, created_at + interval '30 seconds' FROM c ORDER BY id`,
    'day',
  ],
  [
    `UPDATE collections SET status = 'SUCCESS', status_message = 'Payment received',
          credited_at = created_at + interval '30 seconds', updated_at = created_at + interval '30 seconds'
    WHERE id >= $1 AND id < $2 AND sender_id LIKE $3`,
    'collections',
  ],
];

const b32 = (v: number, len: number) => {
  const A = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let s = '';
  for (let i = len - 1; i >= 0; i--) s += A[Math.floor(v / 32 ** i) % 32];
  return s;
};

/** Where one side's database lives: a PostgreSQL URL with its search_path, or a PGlite server's data directory. */
type Place = { engine: 'postgres'; url: string } | { engine: 'pglite'; dir: string };

/** One connection to a side's database, the same statements on either engine. */
interface Session {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** One transaction around `fn`. */
  transaction(fn: (q: Pick<Session, 'query'>) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL: one `pg` client (temporary functions live in its session). PGlite: the server's own openDatabase(),
 * which takes the data directory's lock (the server must be stopped) and migrates, as the server's start does.
 */
async function openSession(place: Place): Promise<Session> {
  if (place.engine === 'postgres') {
    const client = new pg.Client({ connectionString: place.url });
    await client.connect();
    const query = async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[];
    return {
      query,
      transaction: async (fn) => {
        await client.query('BEGIN');
        try {
          await fn({ query });
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      },
      close: () => client.end(),
    };
  }
  const db = await openDatabase({ dataDir: place.dir });
  return {
    query: async <R>(sql: string, params?: unknown[]) => (await db.query<R>(sql, params)).rows,
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({ query: async <R>(sql: string, params?: unknown[]) => (await tx.query<R>(sql, params)).rows }),
      ),
    close: () => db.close(),
  };
}

async function withSession<T>(place: Place, fn: (s: Session) => Promise<T>): Promise<T> {
  const session = await openSession(place);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

/**
 * Loads `count` payouts (numbered from `first` + 1) over the 90 days before `now` into the schema at `url`, for
 * `wallets` (the first the busiest); `pass` tells this load's rows from an earlier one's.
 */
async function load(
  place: Place,
  wallets: { walletId: string; merchantId: string }[],
  o: { first: number; count: number; now: number; pass: number },
  log: (m: string) => void,
) {
  await withSession(place, async (client) => {
    await client.query(`SET statement_timeout = 0`);
    await client.query(B32_FUNCTION);
    // Days are IST days, so that each payout's ist_day is its day's.
    const start = (istDayStart(istDay(new Date(o.now - DAYS * DAY_MS))) as Date).getTime();
    // Enough money for every debit, credited before the first.
    if (o.pass === 1)
      await client.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, reference, created_at)
         SELECT w, 'credit', 100000000000000, 0, 'scale-funding', $2 FROM unnest($1::text[]) AS w`,
        [wallets.map((w) => w.walletId), new Date(start - DAY_MS)],
      );
    const perDay = Math.ceil(o.count / DAYS);
    let done = 0;
    for (let d = 0; d < DAYS && done < o.count; d++) {
      const dayStart = start + d * DAY_MS;
      const count = Math.min(perDay, o.count - done);
      const day = [wallets.map((w) => w.walletId), wallets.map((w) => w.merchantId), new Date(dayStart), count];
      const bounds = (prefix: string) => [prefix + b32(dayStart, 10), prefix + b32(dayStart + DAY_MS, 10)];
      await client.transaction(async (tx) => {
        for (const [sql, kind] of DAY_STEPS) {
          const params =
            kind === 'day'
              ? [...day, o.first + done, String(o.pass), istDay(new Date(dayStart))]
              : kind === 'payouts'
                ? [...bounds('PT'), `scale-${o.pass}-%`]
                : [...bounds('CT'), `scale-c-${o.pass}-%`];
          // A statement gets the parameters up to the last it names (PostgreSQL types each one from its use).
          const last = Math.max(...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
          await tx.query(sql, params.slice(0, last));
        }
      });
      done += count;
      if (d % 15 === 14) log(`scale: ${(o.first + done).toLocaleString('en')} payouts loaded`);
    }
    // The loader moves each wallet's row once per entry inside day-long transactions (about 1,300 versions of the
    // busiest wallet's row in each), which leaves the wallets table of 24 rows at about 134 MB after a million
    // payouts; a seq scan of it took 84 ms of the ledger check. The server's entries come in short transactions
    // whose old row versions HOT pruning and autovacuum reclaim as they go, so a real wallets table stays a few
    // pages: rewriting it makes the loaded one look like that.
    await client.query('VACUUM FULL wallets');
    // As the issue's measurement: the machine's PostgreSQL runs with autovacuum off (and PGlite has none).
    await client.query('VACUUM (ANALYZE)');
  });
}

async function sizes(place: Place): Promise<string> {
  const rows = await withSession(place, (client) =>
    client.query<{ t: string; n: string; size: string }>(
      `SELECT c.relname AS t, c.reltuples::int8 AS n, pg_size_pretty(pg_total_relation_size(c.oid)) AS size
         FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
          AND c.relname IN ('payouts', 'ledger_entries', 'transaction_events', 'webhook_deliveries', 'webhook_attempts',
                            'collections')
        ORDER BY pg_total_relation_size(c.oid) DESC`,
    ),
  );
  return rows.map((r) => `${r.t} ${Number(r.n).toLocaleString('en')} rows ${r.size}`).join('; ');
}

/** Bytes under a directory (a PGlite data directory), as `du` would count its files. */
async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await dirBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

/**
 * Closes the loaded days as the worker's ledger closing pass does (jobs/LedgerClosings.ts, migration 044), which the
 * server's start ran on a ledger still empty and would run again only a quarter of an hour later: statements then
 * open from a day's closing, as on a database the worker has kept up with. Says how long it took.
 */
async function closeLedgerDays(place: Place, log: (m: string) => void) {
  await withSession(place, async (client) => {
    await client.query(`SET statement_timeout = 0`);
    const t0 = performance.now();
    let days = 0;
    for (;;) {
      const rows = await client.query<{ closed: number }>('SELECT ledger_close_days(31) AS closed');
      days += Number(rows[0]?.closed ?? 0);
      if (Number(rows[0]?.closed ?? 0) < 31) break;
    }
    await client.query('ANALYZE ledger_day_closings');
    log(`scale: closed ${days} ledger days in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });
}

/** The wallet with the most entries on the statement's day (in an existing database, the busiest). */
async function busiestWallet(place: Place, from: Date, to: Date): Promise<string | null> {
  const rows = await withSession(place, (client) =>
    client.query<{ wallet_id: string }>(
      `SELECT wallet_id FROM ledger_entries WHERE created_at >= $1 AND created_at < $2 AND wallet_id NOT LIKE 'PW_%'
        GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
      [from, to],
    ),
  );
  return rows[0]?.wallet_id ?? null;
}

/** What a side's calls need: its wallets and, for the merchant API, the busiest wallet's merchant's token. */
interface SideTargets {
  busiest: string | null;
  steady: string | null;
  /** Null on an existing database (its merchants' secret keys are not the bench's): its merchant rows are skipped. */
  merchantToken: string | null;
}

/** A call: its name, its path, whose token it carries, and whether a 404 counts as its answer (see the header). */
interface CallSpec {
  name: string;
  path: string;
  auth: 'admin' | 'merchant';
  notFoundIsAnswer?: boolean;
}

/**
 * A payout of the busiest wallet's merchant on every loaded database: load() numbers payouts from 1 and gives
 * number g to the busiest wallet when g % 10 < 4 and g is past the day's first 100 (the steady wallet's); 101 is on
 * the first day, 90 days back, for any count of at least 101.
 */
const STATUS_SENDER_ID = 'scale-1-101';

/** The issue's calls. */
function callsOf(w: SideTargets, now: number): CallSpec[] {
  const weekTo = istDay(new Date(now - 30 * DAY_MS));
  const weekFrom = istDay(new Date(now - 36 * DAY_MS));
  const dayFrom = new Date(Math.floor((now - 10 * DAY_MS) / DAY_MS) * DAY_MS);
  const range = `from=${dayFrom.toISOString()}&to=${new Date(dayFrom.getTime() + DAY_MS).toISOString()}`;
  const admin = (name: string, path: string): CallSpec => ({ name, path, auth: 'admin' });
  return [
    admin('console overview GET /admin/v1/stats', '/admin/v1/stats'),
    admin('webhooks state=failed', '/admin/v1/webhooks/deliveries?state=failed'),
    admin('payouts from/to a week 30 days back', `/admin/v1/payouts?from=${weekFrom}&to=${weekTo}`),
    admin(
      'statement, one day of a wallet of 100 payouts a day, JSON',
      `/admin/v1/wallets/${w.steady}/statement?${range}`,
    ),
    admin('statement, one day of the busiest wallet, JSON', `/admin/v1/wallets/${w.busiest}/statement?${range}`),
    admin(
      'statement, one day of the busiest wallet, CSV',
      `/admin/v1/wallets/${w.busiest}/statement?${range}&format=csv`,
    ),
    admin('GET /admin/v1/ledger/verify', '/admin/v1/ledger/verify'),
    {
      name: 'merchant GET /payout/v1/status by sender_id, 90 days old (empty: not found)',
      path: `/payout/v1/status?sender_id=${STATUS_SENDER_ID}`,
      auth: 'merchant',
      notFoundIsAnswer: true,
    },
    {
      name: 'merchant GET /payout/v1/balance, busiest wallet',
      path: `/payout/v1/balance?wallet_id=${w.busiest}`,
      auth: 'merchant',
    },
  ];
}

async function timeOnce(url: string, token: string, call: CallSpec): Promise<number> {
  const started = performance.now();
  const res = await fetch(url + call.path, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200 && !(res.status === 404 && call.notFoundIsAnswer))
    throw new Error(`GET ${call.path}: ${res.status} ${body.slice(0, 300)}`);
  return ms;
}

/** A merchant's V2 token from its keys (as a merchant's client asks for it). */
async function merchantToken(url: string, keys: { apiKey: string; secretKey: string }): Promise<string> {
  const res = await fetch(`${url}/v1/auth/client-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(keys),
  });
  const json = (await res.json()) as { data: string };
  if (res.status !== 200) throw new Error(`client-token: ${res.status} ${JSON.stringify(json)}`);
  return (decryptJsonObject(json.data, 'v2', keys) as { token: string }).token;
}

/**
 * Every call on every database, in alternating rounds (call by call, database by database), so that the machine's
 * load falls on all of them alike: two rounds to warm up, then ROUNDS timed. Each call's median and minimum, or
 * null where a side cannot make it (the merchant calls on an existing database).
 */
async function measure(
  sides: { url: string; wallets: SideTargets }[],
  adminToken: string,
  now: number,
): Promise<(Timing | null)[][]> {
  const count = callsOf({ busiest: null, steady: null, merchantToken: null }, now).length;
  const times = sides.map(() => Array.from({ length: count }, () => [] as number[]));
  for (let round = 0; round < ROUNDS + 2; round++)
    for (let c = 0; c < count; c++)
      for (let k = 0; k < sides.length; k++) {
        const side = sides[k] as (typeof sides)[number];
        const call = callsOf(side.wallets, now)[c] as CallSpec;
        const token = call.auth === 'admin' ? adminToken : side.wallets.merchantToken;
        if (token === null) continue;
        const ms = await timeOnce(side.url, token, call);
        if (round >= 2) times[k]?.[c]?.push(ms);
      }
  return times.map((perCall) =>
    perCall.map((t) => {
      if (t.length === 0) return null;
      t.sort((x, y) => x - y);
      return { median: t[Math.floor(t.length / 2)] as number, min: t[0] as number };
    }),
  );
}

/** The default loaded size: a million payouts on PostgreSQL, 200,000 on PGlite (issue 35's PGlite target). */
const defaultPayouts = (engine: 'pglite' | 'postgres') => (engine === 'pglite' ? 200_000 : 1_000_000);

export async function benchScale(
  engine: 'pglite' | 'postgres',
  o: {
    env: NodeJS.ProcessEnv;
    databaseUrl?: string;
    log: (m: string) => void;
  },
): Promise<ScaleResult> {
  const payouts = Number(process.env.BENCH_SCALE_PAYOUTS ?? defaultPayouts(engine));
  const base = Math.min(payouts, Number(process.env.BENCH_SCALE_BASE ?? 10_000));
  const existing = engine === 'postgres' ? process.env.BENCH_SCALE_DATABASE_URL : undefined;
  const root = o.databaseUrl;
  if (engine === 'postgres' && !root) throw new Error('BENCH_ONLY=scale on PostgreSQL needs BENCH_DATABASE_URL');
  const cleanups: (() => Promise<unknown>)[] = [];
  const servers: Child[] = [];
  const adminToken = `bench-${randomBytes(8).toString('hex')}`;
  await buildServer();
  const start = async (place: Place) => {
    const port = await freePort();
    const child = spawnServer({
      ...o.env,
      ...(place.engine === 'postgres' ? { DATABASE_URL: place.url } : { PAYRAIL_DATA_DIR: place.dir }),
      PORT: String(port),
      HOST: '127.0.0.1',
      PAYRAIL_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      PAYRAIL_RATE_LIMIT_PER_MINUTE: '1000000000',
      // The merchant calls' tokens are fetched once, before the timed rounds, which may take longer than 5 minutes.
      PAYRAIL_TOKEN_TTL_SECONDS: '86400',
    });
    servers.push(child);
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, child);
    return { url: `http://127.0.0.1:${port}`, child };
  };
  const merchantsOn = async (url: string) => {
    const wallets: { walletId: string; merchantId: string }[] = [];
    let keys: { apiKey: string; secretKey: string } | null = null;
    for (let i = 0; i < MERCHANTS; i++) {
      const m = await adminCall(url, adminToken, 'POST', '/admin/v1/merchants', { name: `Scale bench ${i}` });
      wallets.push({ walletId: String(m.wallet_id), merchantId: String(m.merchant_id) });
      keys ??= { apiKey: String(m.api_key), secretKey: String(m.secret_key) };
    }
    return { wallets, keys };
  };
  const now = Date.now();
  const dayFrom = new Date(Math.floor((now - 10 * DAY_MS) / DAY_MS) * DAY_MS);
  try {
    // Three databases side by side: empty (merchants only), small (BENCH_SCALE_BASE payouts, default 10,000: its
    // lists answer full pages, as the loaded one's do, where the empty one's answer nothing) and loaded.
    const sides: {
      label: string;
      url: string;
      child: Child;
      wallets: SideTargets;
      keys: { apiKey: string; secretKey: string } | null;
      place: Place;
    }[] = [];
    let loadMs: number | null = null;
    let tableSizes = '';
    for (const [label, count] of [
      ['empty', 0],
      ['small', base],
      ['loaded', payouts],
    ] as const) {
      if (label === 'loaded' && existing) {
        const place: Place = { engine: 'postgres', url: existing };
        const { url, child } = await start(place);
        await closeLedgerDays(place, o.log);
        tableSizes = await sizes(place);
        const walletId = await busiestWallet(place, dayFrom, new Date(dayFrom.getTime() + DAY_MS));
        sides.push({
          label,
          url,
          child,
          wallets: { busiest: walletId, steady: walletId, merchantToken: null },
          keys: null,
          place,
        });
        continue;
      }
      const keep = label === 'loaded' && process.env.BENCH_SCALE_KEEP === '1';
      const where = await freshStorage(engine, `scale`, keep ? [] : cleanups, root);
      const place: Place = engine === 'postgres' ? { engine, url: where } : { engine, dir: where };
      let server = await start(place);
      const { wallets, keys } = await merchantsOn(server.url);
      if (count > 0) {
        // PGlite: the server holds its data directory alone, so it stops while the bench writes into it.
        if (engine === 'pglite') await stopChild(server.child);
        o.log(`scale: loading ${count.toLocaleString('en')} payouts over ${DAYS} days (${label})`);
        const t0 = performance.now();
        await load(place, wallets, { first: 0, count, now, pass: 1 }, o.log);
        if (label === 'loaded') loadMs = performance.now() - t0;
        await closeLedgerDays(place, o.log);
        // Here, while a PGlite server is still stopped.
        if (label === 'loaded') tableSizes = await sizes(place);
        if (engine === 'pglite') server = await start(place);
      }
      if (keep)
        o.log(`scale: kept, ${engine === 'postgres' ? 'BENCH_SCALE_DATABASE_URL=' : 'data directory '}${where}`);
      sides.push({
        label,
        url: server.url,
        child: server.child,
        wallets: { busiest: wallets[0]?.walletId ?? null, steady: wallets[1]?.walletId ?? null, merchantToken: null },
        keys,
        place,
      });
    }
    // Tokens last, from each server as it now runs (a PGlite one started again after its load).
    for (const side of sides) if (side.keys) side.wallets.merchantToken = await merchantToken(side.url, side.keys);
    o.log(`scale: timing ${ROUNDS} rounds`);
    const rssPeak = sides.map(() => 0);
    const sampler = setInterval(
      () => sides.forEach((side, k) => (rssPeak[k] = Math.max(rssPeak[k] as number, rssOf(side.child.pid) ?? 0))),
      200,
    );
    let timed: (Timing | null)[][];
    try {
      timed = await measure(sides, adminToken, now);
    } finally {
      clearInterval(sampler);
    }
    const loadedSide = sides[2] as (typeof sides)[number];
    const names = callsOf({ busiest: null, steady: null, merchantToken: null }, now);
    return {
      engine,
      payouts,
      smallPayouts: base,
      loadMs,
      sizes: tableSizes,
      dataDirBytes: loadedSide.place.engine === 'pglite' ? await dirBytes(loadedSide.place.dir) : null,
      rss: sides.map((side, k) => ({
        label: side.label,
        peakMb: (rssPeak[k] as number) / 1048576,
        afterMb: (rssOf(side.child.pid) ?? 0) / 1048576,
      })),
      calls: names.map(({ name }, c) => ({
        name,
        empty: timed[0]?.[c] ?? null,
        small: timed[1]?.[c] ?? null,
        loaded: timed[2]?.[c] ?? null,
      })),
    };
  } finally {
    for (const child of servers) await stopChild(child);
    for (const step of cleanups) await step().catch(() => undefined);
  }
}

/** The table: each call's median (and minimum) on each database, and the loaded one's ratios to the others. */
export function scaleTable(r: ScaleResult): string {
  const f = (t: Timing | null) => (t === null ? '—' : `${t.median.toFixed(1)} (${t.min.toFixed(1)})`);
  const ratio = (a: Timing | null, b: Timing | null) =>
    a === null || b === null ? '—' : `${(a.median / b.median).toFixed(2)} × (${(a.min / b.min).toFixed(2)} ×)`;
  const rows = [
    [
      'call: median (min) ms',
      'empty',
      `${r.smallPayouts.toLocaleString('en')} payouts`,
      `${r.payouts.toLocaleString('en')} payouts`,
      'loaded ÷ empty',
      `loaded ÷ ${r.smallPayouts.toLocaleString('en')}`,
    ],
    ...r.calls.map((c) => [
      c.name,
      f(c.empty),
      f(c.small),
      f(c.loaded),
      ratio(c.loaded, c.empty),
      ratio(c.loaded, c.small),
    ]),
  ];
  const head = [
    r.engine,
    ...(r.loadMs === null ? [] : [`loaded in ${(r.loadMs / 1000).toFixed(0)} s`]),
    ...(r.dataDirBytes === null ? [] : [`data directory ${(r.dataDirBytes / 1048576).toFixed(0)} MB`]),
    `server RSS peak (after) ${r.rss.map((x) => `${x.label} ${x.peakMb.toFixed(0)} (${x.afterMb.toFixed(0)}) MB`).join(', ')}`,
  ].join('; ');
  return `${head}\n${r.sizes}\n\n${rows.map((x) => `| ${x.join(' | ')} |`).join('\n')}`;
}
