import pg from 'pg';
import { encodeTime } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { MerchantService } from '../../src/services/MerchantService.ts';
import type { Database, Queryable } from '../../src/store/Database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { PayoutRepository } from '../../src/store/repositories/PayoutRepository.ts';
import { PayoutStepRepository } from '../../src/store/repositories/PayoutStepRepository.ts';
import { StatementRepository } from '../../src/store/repositories/StatementRepository.ts';
import { StatsRepository } from '../../src/store/repositories/StatsRepository.ts';
import { WebhookRepository } from '../../src/store/repositories/WebhookRepository.ts';
import { statementsOf } from '../support/recordStatements.ts';
import { testDatabases, type TestDatabase } from '../support/testDatabase.ts';

/*
 * Issue 35: the operators' daily reads follow an index on a realistic table, not a scan. Each read's own SQL (taken
 * from its repository method) is explained on PostgreSQL over 90 days of rows (120,000 payouts, 98 % of one merchant's,
 * 2 % of another's; as many webhook deliveries, nearly all delivered; their debits over ten wallets), after VACUUM
 * ANALYZE, as the planner would see a real database: no planner setting is changed.
 */
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T06:30:00Z');
const PAYOUTS = 120_000;
const GENERIC = '\n--- generic plan ---\n';

describe.runIf(Boolean(process.env.TEST_DATABASE_URL))('reads that stay flat at scale (PostgreSQL plans)', () => {
  const dbs = testDatabases('postgres');
  let t: TestDatabase;
  let db: Database;
  let generic: pg.Client | undefined;
  const busy = { merchant: '', wallet: '' };
  const quiet = { merchant: '', wallet: '' };

  beforeAll(async () => {
    t = await dbs.fresh();
    db = t.db;
    await migrate(db);
    const merchants = new MerchantService(db, systemClock);
    for (const side of [busy, quiet]) {
      const made = await merchants.create(`Flat ${side === busy ? 'busy' : 'quiet'}`);
      side.merchant = made.merchant.id;
      side.wallet = made.wallet.id;
    }
    // Rows only: the triggers' work (balances, history) is not what is measured here.
    await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('session_replication_role', 'replica', true)`);
      await tx.query(
        `CREATE FUNCTION pg_temp.b32(v int8, len int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
           SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((v >> (5 * (len - 1 - i))) & 31)::int + 1, 1),
                             '' ORDER BY i) FROM generate_series(0, len - 1) AS i $$`,
      );
      await tx.query(
        `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
           beneficiary_account, beneficiary_ifsc, scheme, status, rail, ist_day, ist_month, created_at, updated_at)
         SELECT 'PT' || pg_temp.b32((extract(epoch FROM at) * 1000)::int8, 10) || '000' || pg_temp.b32(g, 13),
                CASE WHEN g % 50 = 0 THEN $3 ELSE $2 END, CASE WHEN g % 50 = 0 THEN $5 ELSE $4 END, 's-' || g, 1000,
                'IMPS', 'Asha Rao', '123456789012', 'HDFC0001234', 'v2',
                CASE WHEN g > $1 - 20 THEN 'PROCESSING' ELSE 'SUCCESS' END, 'sandbox', '2026-01-01', '2026-01', at, at
           FROM generate_series(1, $1::int) AS g
          CROSS JOIN LATERAL (SELECT $6::timestamptz - make_interval(secs => ($1 - g) * (90 * 86400.0 / $1)) AS at) t`,
        [PAYOUTS, busy.merchant, quiet.merchant, busy.wallet, quiet.wallet, new Date(NOW)],
      );
      await tx.query(
        `INSERT INTO webhook_deliveries (id, merchant_id, subject_id, type, url, scheme, snapshot, state,
           next_attempt_at, created_at)
         SELECT 'EV' || substr(id, 3), merchant_id, id, 'payout.success', 'https://m.example/h', 'v2', 'x',
                CASE WHEN substr(id, 28) = '0' THEN 'failed' WHEN status = 'PROCESSING' THEN 'pending'
                     ELSE 'delivered' END, created_at, created_at
           FROM payouts ORDER BY id`,
      );
      await tx.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, payout_id, created_at)
         SELECT CASE WHEN abs(hashtext(id)) % 10 = 0 THEN $1 ELSE 'WLOTHER' || abs(hashtext(id)) % 9 END,
                'payout_debit', -amount, 0, id, created_at
           FROM payouts ORDER BY id`,
        [busy.wallet],
      );
    });
    // As autovacuum leaves a table: statistics, and the visibility map that lets an index-only scan skip the heap.
    await db.query('VACUUM (ANALYZE) payouts, webhook_deliveries, ledger_entries');
    // One plain connection for generic plans: PREPARE and EXECUTE by name, on the test's schema.
    generic = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await generic.connect();
    await generic.query(`SET search_path TO ${t.schema}`);
    await generic.query('SET plan_cache_mode = force_generic_plan');
  }, 300_000);
  afterAll(async () => {
    await generic?.end();
    await dbs.closeAll();
  });

  /**
   * The plans of every statement `run` sends, as text: the plan for its parameters, and the generic plan that a
   * prepared statement (the server's, on PostgreSQL) may keep after five runs, which sees `$n`, not the values;
   * each string holds both, GENERIC between them. `settings` (`name = value`) are set for both, as a function's own
   * SET clauses are for its statement.
   */
  async function plansOf(run: (q: Queryable) => Promise<unknown>, settings: string[] = []): Promise<string[]> {
    const plans: string[] = [];
    for (const { sql, params } of await statementsOf(run)) {
      const { rows } = await db.transaction(async (tx) => {
        for (const setting of settings) await tx.query(`SET LOCAL ${setting}`);
        return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
      });
      const custom = rows.map((r) => r['QUERY PLAN']).join('\n');
      const client = generic as pg.Client;
      for (const setting of settings) await client.query(`SET ${setting}`);
      await client.query(`PREPARE flat_generic AS ${sql}`);
      // EXECUTE takes its arguments as text in the statement, not as bound parameters (arrays as array literals,
      // of plain identifiers here).
      const text = (v: unknown) =>
        v instanceof Date ? v.toISOString() : Array.isArray(v) ? `{${v.join(',')}}` : String(v);
      const args = params.map((v) => (v === null ? 'NULL' : client.escapeLiteral(text(v)))).join(', ');
      const explained = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN EXECUTE flat_generic${params.length ? `(${args})` : ''}`,
      );
      await client.query('DEALLOCATE flat_generic');
      for (const setting of settings) await client.query(`RESET ${setting.split('=')[0] as string}`);
      const genericPlan = explained.rows.map((r) => r['QUERY PLAN']).join('\n');
      plans.push(`${custom}${GENERIC}${genericPlan}`);
    }
    expect(plans.length).toBeGreaterThan(0);
    return plans;
  }

  /** Both plans of a statement use `index` and scan none of the big tables. */
  const expectIndex = (plans: string, index: string) => {
    for (const plan of plans.split(GENERIC)) {
      expect(plan, plans).toContain(index);
      expect(plan, plans).not.toMatch(/Seq Scan on (payouts|webhook_deliveries|ledger_entries)/);
    }
  };

  /**
   * Both plans read a window of an id index: the primary key or the merchant's. A generic plan does not know which
   * merchant, and with two merchants in the table it may take the primary key's window over the merchant's; it is
   * the window either way, never the table.
   */
  const expectIdWindow = (plans: string) => {
    expectIndex(plans, 'Index Scan');
    for (const plan of plans.split(GENERIC))
      expect(plan, plans).toMatch(/using payouts_(pkey|by_merchant)[^\n]*\n\s+Index Cond: \(.*id >= /);
  };

  it('the overview: the day of payouts by id bounds, each scope on its own index; the backlog on the partial index', async () => {
    const since = new Date(NOW - DAY);
    const [all] = await plansOf((q) => StatsRepository.payoutsPerHour(q, since));
    expectIndex(all as string, 'Index Scan using payouts_pkey');
    expect(all).toMatch(/Index Cond: \(id >= 'PT/);
    const [busyOne] = await plansOf((q) => StatsRepository.payoutsPerHour(q, since, busy.merchant));
    expectIdWindow(busyOne as string);
    const [one] = await plansOf((q) => StatsRepository.payoutsPerHour(q, since, quiet.merchant));
    expectIdWindow(one as string);
    expect((one as string).split(GENERIC)[0]).toMatch(/Index Cond: \(\(merchant_id = '[^']+'::text\) AND \(id >= 'PT/);
    const [backlog] = await plansOf((q) => StatsRepository.webhookBacklog(q));
    expectIndex(backlog as string, 'webhook_deliveries_unsettled');
    const [merchantBacklog] = await plansOf((q) => StatsRepository.webhookBacklog(q, quiet.merchant));
    expectIndex(merchantBacklog as string, 'webhook_deliveries_unsettled');
    const [onHold] = await plansOf((q) => StatsRepository.moneyOnHold(q, busy.merchant));
    expectIndex(onHold as string, 'payouts_open_by_wallet');
  });

  it('payouts with from/to a week, 30 days back: the window is walked from its end on an id index', async () => {
    const createdFrom = new Date(NOW - 37 * DAY);
    const createdBefore = new Date(NOW - 30 * DAY);
    const [all] = await plansOf((q) => PayoutRepository.page(q, { createdFrom, createdBefore, limit: 51 }));
    expectIndex(all as string, 'payouts_pkey');
    expect(all).toContain(`'PT${encodeTime(createdBefore.getTime() + 3_600_000, 10)}'`);
    const [one] = await plansOf((q) =>
      PayoutRepository.page(q, { merchantId: quiet.merchant, createdFrom, createdBefore, limit: 51 }),
    );
    expectIdWindow(one as string);
    expect((one as string).split(GENERIC)[0]).toContain('payouts_by_merchant');
  });

  it("the console's failed deliveries, of all merchants or one: the partial index of undelivered ones", async () => {
    const [all] = await plansOf((q) => WebhookRepository.page(q, { state: 'failed', limit: 51 }));
    expectIndex(all as string, 'webhook_deliveries_unsettled');
    const [one] = await plansOf((q) =>
      WebhookRepository.page(q, { state: 'failed', merchantId: quiet.merchant, limit: 51 }),
    );
    expectIndex(one as string, 'webhook_deliveries_unsettled_by_merchant');
  });

  it("a day's statement of the busy wallet: opening balance and entries by wallet and time", async () => {
    // 60 days back: the opening balance reads the third of the wallet's entries before it, not all of them. (How far
    // back a day must be for the planner to prefer the index depends on the visibility map: with every page
    // all-visible the read is index-only and wins for any day; a long transaction elsewhere can leave it unset.)
    const from = new Date(NOW - 60 * DAY);
    const [opening] = await plansOf((q) => StatementRepository.openingBalance(q, busy.wallet, from));
    expectIndex(opening as string, 'ledger_by_wallet_time');
    // The day's id span from the day's entries, then pages within that span by (wallet, id) or the primary key:
    // never a walk from the wallet's first entry (the span's min and max written as such were the primary key's).
    const day = { from, to: new Date(from.getTime() + DAY) };
    const [span] = await plansOf((q) => StatementRepository.idSpan(q, busy.wallet, day));
    expectIndex(span as string, 'ledger_by_wallet_time');
    const bounds = await StatementRepository.idSpan(db, busy.wallet, day);
    const [page] = await plansOf((q) => StatementRepository.entryPage(q, busy.wallet, day, bounds, 20_001));
    for (const plan of (page as string).split(GENERIC)) {
      expect(plan, page).toMatch(/Index Cond: \(\(wallet_id = [^)]*\) AND \(id > |Index Cond: \(\(id > /);
      expect(plan, page).not.toMatch(/Seq Scan on ledger_entries/);
    }
  });

  it("the worker's webhook claim: due deliveries in order, each one's earlier ones probed by subject", async () => {
    // The claim is a function (migration 045) with planner settings of its own: its statement is explained as it
    // runs, with those settings and its arguments as parameters. The statistics say that hardly any delivery is
    // pending, as on any large database; a plan that believed them read every pending delivery for each candidate.
    const { rows } = await db.query<{ prosrc: string; proconfig: string[] }>(
      `SELECT prosrc, proconfig FROM pg_proc
        WHERE proname = 'webhook_deliveries_claim' AND pronamespace = current_schema()::regnamespace`,
    );
    const fn = rows[0] as { prosrc: string; proconfig: string[] };
    expect(fn.proconfig).toEqual(['enable_sort=off', 'enable_bitmapscan=off']);
    const body = fn.prosrc
      .replace(/\bp_limit\b/g, '$1::int')
      .replace(/\bp_lease_ms\b/g, '$2::float8')
      .replace(/\bp_owner\b/g, '$3::text');
    const [claim] = await plansOf((q) => q.query(body, [64, 30_000, 'owner']), fn.proconfig);
    expectIndex(claim as string, 'Index Scan using webhook_deliveries_due on webhook_deliveries d');
    for (const plan of (claim as string).split(GENERIC)) {
      expect(plan, claim).toMatch(
        /Index Scan using webhook_deliveries_by_subject on webhook_deliveries e [^\n]*\n\s+Index Cond: \(\(subject_id = d\.subject_id\) AND \(seq < d\.seq\)\)/,
      );
    }
  });

  it("the worker's submission claim finds its payouts by primary key, never by their status", async () => {
    // No payout is INITIATED in these statistics, as between bursts: an index of the status (payouts_by_status, or
    // the open payouts' partial index) looks like one row, and reading it would read the whole backlog.
    const { rows } = await db.query<{ id: string }>('SELECT id FROM payouts ORDER BY id DESC LIMIT 64');
    const ids = rows.map((r) => r.id);
    const [claim] = await plansOf((q) => PayoutStepRepository.claimSubmissions(q, ids));
    expectIndex(claim as string, 'Index Scan using payouts_pkey');
    expect(claim).not.toMatch(/payouts_by_status|payouts_open_by_wallet/);
  });
});
