import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATEMENT_MAX_ENTRIES, STATEMENT_PAGE_ENTRIES } from '../../src/services/WalletStatementService.ts';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { admin, createMerchant, type TestMerchant } from '../support/merchantClient.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

/** More entries than the JSON form's cap, and not a whole number of pages. */
const SEEDED = STATEMENT_MAX_ENTRIES + 1_234;
/** The seeded entries: one a minute from this instant, entry g (1-based) of amount BIG + g paise. */
const SEED_START = Date.parse('2026-01-01T00:00:00Z');
/** Odd and large: their sum passes 2^53 paise, where a float would round. */
const BIG = 500_000_000_001n;
const seededAmount = (g: number) => BIG + BigInt(g);
const seededAt = (g: number) => SEED_START + g * 60_000;
/** The initial credit of createMerchant (after the seeded entries in ledger order, but created now). */
const INITIAL = 100_000n;

/** Decimal rupees text to paise, exactly. */
const paise = (rupees: string) => BigInt(rupees.replace('.', ''));

/** Raw GET with a console session's cookie (the console's Export CSV link is a plain download). */
async function download(url: string, path: string, cookie: string) {
  const res = await fetch(`${url}${path}`, { headers: { cookie } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text(), res };
}

/**
 * Statements of any length (issue 35): CSV and JSON lines stream with no entry cap, and add up exactly in paise; the
 * JSON form keeps its cap and says where to go beyond it.
 */
describe.each(ENGINES)('streamed wallet statements on %s', (engine) => {
  let t: TestServer;
  let m: TestMerchant;
  let operator: ConsoleSession;

  beforeAll(async () => {
    t = await startTestServer(engine);
    m = await createMerchant(t.url, 'Busy Merchant', '1000.00');
    // Straight into the ledger, as its trigger applies each entry to the wallet: 21k payouts would take minutes. In
    // statements of 1,000: each entry updates the wallet row, and within one statement every update walks the row's
    // chain of versions so far, so one statement of all would be quadratic.
    for (let first = 1; first <= SEEDED; first += 1_000) {
      await t.db.query(
        `INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, reference, created_at)
         SELECT $1, 'credit', $2::int8 + g, 0, 'seed-' || g, to_timestamp(($3::int8 + g * 60000) / 1000.0)
           FROM generate_series($4::int, $5::int) g`,
        [m.wallet_id, String(BIG), String(SEED_START), first, Math.min(first + 999, SEEDED)],
      );
    }
    await createOperator(t.url, 'viewer@example.com', 'viewer');
    operator = await ConsoleSession.signIn(t.url, 'viewer@example.com');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the whole range as JSON (its cap), naming the streamed forms', async () => {
    const res = await admin(t.url, 'GET', `/admin/v1/wallets/${m.wallet_id}/statement`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/format=csv or format=jsonl/);
  });

  it('downloads the whole range as CSV from the operator console: every entry, running balances and totals exact', async () => {
    const got = await download(t.url, `/admin/v1/wallets/${m.wallet_id}/statement?format=csv`, operator.cookie);
    expect(got.status).toBe(200);
    expect(got.type).toMatch(/^text\/csv/);
    expect(got.res.headers.get('content-disposition')).toBe(
      `attachment; filename="statement-${m.wallet_id}-all-all.csv"`,
    );
    const lines = got.text.split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('entry_id,created_at,kind,amount,balance,reference,payout_id,collection_id,description');
    const rows = lines.slice(1).map((l) => l.split(','));
    const entries = rows.slice(1, -1);
    // Without `from`, the opening line is dated at the first entry in ledger order (the merchant's initial credit).
    expect(rows[0]?.slice(1, 5)).toEqual([entries[0]?.[1], 'opening_balance', '', '0.00']);
    expect(entries.length).toBe(SEEDED + 1);
    expect(entries.length).toBeGreaterThan(STATEMENT_MAX_ENTRIES);
    let balance = 0n;
    const ids = new Set<string>();
    for (const [id, , , amount, running] of entries) {
      balance += paise(amount as string);
      expect(paise(running as string)).toBe(balance);
      ids.add(id as string);
    }
    expect(ids.size).toBe(entries.length);
    let expected = INITIAL;
    for (let g = 1; g <= SEEDED; g++) expected += seededAmount(g);
    expect(balance).toBe(expected);
    expect(expected).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    const closing = rows[rows.length - 1] as string[];
    expect(closing[2]).toBe('closing_balance');
    expect(paise(closing[4] as string)).toBe(expected);
    const wallet = await t.db.query<{ balance: bigint }>('SELECT balance FROM wallets WHERE id = $1', [m.wallet_id]);
    expect(BigInt(wallet.rows[0]?.balance as bigint)).toBe(expected);
  });

  it("streams a range as JSON lines to the merchant's console, with its opening balance and totals exact", async () => {
    const mine = await ConsoleSession.merchant(t.url, m.api_key, m.secret_key);
    // IST days: 2026-01-03 00:00 IST is 2026-01-02T18:30Z; the 10th's end is 2026-01-10T18:30Z.
    const from = Date.parse('2026-01-02T18:30:00Z');
    const to = Date.parse('2026-01-10T18:30:00Z');
    const got = await download(
      t.url,
      `/console/api/merchant/wallets/${m.wallet_id}/statement?format=jsonl&from=2026-01-03&to=2026-01-10`,
      mine.cookie,
    );
    expect(got.status).toBe(200);
    expect(got.type).toMatch(/^application\/x-ndjson/);
    const lines = got.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    let opening = 0n;
    let inRange = 0n;
    let count = 0;
    for (let g = 1; g <= SEEDED; g++) {
      if (seededAt(g) < from) opening += seededAmount(g);
      else if (seededAt(g) < to) {
        inRange += seededAmount(g);
        count++;
      }
    }
    expect(count).toBeGreaterThan(STATEMENT_PAGE_ENTRIES * 5);
    expect(lines[0]).toEqual({
      type: 'opening',
      wallet_id: m.wallet_id,
      currency: 'INR',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      opening_balance: expect.any(String),
    });
    expect(paise(lines[0]?.opening_balance as string)).toBe(opening);
    const entries = lines.slice(1, -1);
    expect(entries.length).toBe(count);
    expect(entries.every((e) => e.type === 'entry' && e.kind === 'credit')).toBe(true);
    expect(paise(entries[entries.length - 1]?.balance as string)).toBe(opening + inRange);
    const closing = lines[lines.length - 1] as Record<string, string | number>;
    expect(closing.type).toBe('closing');
    expect(closing.entries).toBe(count);
    expect(paise(closing.closing_balance as string)).toBe(opening + inRange);
    expect(paise(closing.total_credits as string)).toBe(inRange);
    expect(closing.total_debits).toBe('0.00');
  });

  it('lets go of its read when the client abandons a download half-way (more downloads than the pool has connections)', async () => {
    for (let i = 0; i < 25; i++) {
      const abort = new AbortController();
      const res = await fetch(`${t.url}/admin/v1/wallets/${m.wallet_id}/statement?format=csv`, {
        headers: { cookie: operator.cookie },
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      abort.abort();
      await reader.cancel().catch(() => {});
    }
    // Each abandoned read held a transaction (PostgreSQL) or would hold the page loop: all must have ended.
    const after = await download(
      t.url,
      `/admin/v1/wallets/${m.wallet_id}/statement?format=jsonl&from=2026-01-03&to=2026-01-04`,
      operator.cookie,
    );
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text.trimEnd().split('\n').pop() as string)).toMatchObject({ type: 'closing' });
  });

  it("is 404 for another merchant's wallet before any line, and for an unknown wallet", async () => {
    const other = await createMerchant(t.url, 'Other Merchant', '5.00');
    const mine = await ConsoleSession.merchant(t.url, other.api_key, other.secret_key);
    const theirs = await download(
      t.url,
      `/console/api/merchant/wallets/${m.wallet_id}/statement?format=csv`,
      mine.cookie,
    );
    expect(theirs.status).toBe(404);
    expect(JSON.parse(theirs.text)).toEqual({ error: expect.objectContaining({ code: expect.any(String) }) });
    const unknown = await download(t.url, '/admin/v1/wallets/WL0/statement?format=jsonl', operator.cookie);
    expect(unknown.status).toBe(404);
  });
});
