import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt053, mt940, type TestStatement } from '../support/bankStatements.ts';
import { initiateOk as initiateCollection, simulate } from '../support/collectionFixtures.ts';
import { ConsoleSession, createOperator } from '../support/consoleClient.ts';
import { admin, http, type HttpResult } from '../support/merchantClient.ts';
import {
  fundedMerchant,
  initiateOk,
  payoutRequest,
  SANDBOX,
  waitForStatus,
  type Funded,
} from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../support/testServer.ts';

type Item = Record<string, unknown> & { result: string; entry_index: number | null; item_id: string };
type Run = Record<string, unknown> & { run_id: string; results: Record<string, { count: number; amount: string }> };

const STATEMENTS = '/admin/v1/reconciliation/statements';

/**
 * Reconciliation end to end over HTTP: import (camt.053 of two versions and MT940), the arithmetic check, the
 * matching results, idempotency, closing exceptions (audited), the CSV export and the roles.
 */
describe.each(ENGINES)('reconciliation on %s', (engine) => {
  let t: TestServer;
  let m: Funded;
  let finance: ConsoleSession;
  let viewer: ConsoleSession;
  const email = (name: string) => `${name}-${engine}@example.test`;
  const p: Record<string, { id: string; utr: string }> = {};
  let collectionUtr: string;

  const upload = (body: string, type = 'application/xml', auth = TEST_ADMIN_TOKEN) =>
    http(t.url, 'POST', STATEMENTS, {
      rawBody: body,
      headers: { authorization: `Bearer ${auth}`, 'content-type': type },
    });
  const imported = async (body: string, type?: string): Promise<Run> => {
    const res = await upload(body, type);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const runs = res.body.runs as Run[];
    expect(runs).toHaveLength(1);
    return runs[0] as Run;
  };
  const items = async (runId: string) => {
    const res = await admin(t.url, 'GET', `/admin/v1/reconciliation/runs/${runId}`);
    expect(res.status).toBe(200);
    return res.body.items as Item[];
  };
  const counts = async () => {
    const { rows } = await t.db.query<{ s: bigint; r: bigint; i: bigint }>(
      `SELECT (SELECT count(*) FROM bank_statements) AS s, (SELECT count(*) FROM reconciliation_runs) AS r,
              (SELECT count(*) FROM reconciliation_items) AS i`,
    );
    return rows[0];
  };

  /** A SUCCESS payout (sandbox), then paid through the bank file as of `day` noon IST. */
  async function bankfilePayout(amount: string, day: string, account = SANDBOX.success) {
    const data = await initiateOk(
      m.client,
      payoutRequest('nested', {
        wallet_id: m.merchant.wallet_id,
        amount,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: account,
      }),
    );
    const id = data.transaction_id as string;
    const done = await waitForStatus(t.url, id, account === SANDBOX.success ? 'SUCCESS' : 'REFUNDED');
    // Paid through bank files: a statement must show it.
    await t.db.query(`UPDATE payouts SET rail = 'bankfile', updated_at = $2 WHERE id = $1`, [
      id,
      new Date(`${day}T12:00:00+05:30`),
    ]);
    return { id, utr: done.utr_number as string };
  }

  /** The statement of 2026-03-02 with one entry of each kind (no batches, so that MT940 can say it too). */
  const dayStatement = (): TestStatement => ({
    date: '2026-03-02',
    entries: [
      { direction: 'debit', amount: '100.00', e2e: p.byId?.id, bankRef: 'HDFCN0001' },
      { direction: 'debit', amount: '200.00', utr: p.byUtr?.utr, bankRef: 'HDFCN0002' },
      { direction: 'debit', amount: '299.00', e2e: p.mismatch?.id },
      { direction: 'credit', amount: '500.00', e2e: p.failed?.id, returnReason: 'AC04' },
      { direction: 'credit', amount: '250.50', utr: collectionUtr },
      { direction: 'credit', amount: '5000.00', utr: 'TOPUP0302AB' },
      { direction: 'debit', amount: '75.00', utr: '999999999999', remittance: 'ATM CASH' },
      { direction: 'debit', amount: '12.00', status: 'PDNG' },
    ],
  });

  beforeAll(async () => {
    t = await startTestServer(engine, { env: { PAYRAIL_RATE_LIMIT_PER_MINUTE: '100000' } });
    m = await fundedMerchant(t.url, 'v2', '100000.00');
    const day = '2026-03-02';
    p.byId = await bankfilePayout('100.00', day);
    p.byUtr = await bankfilePayout('200.00', day);
    p.mismatch = await bankfilePayout('300.00', day);
    p.missing = await bankfilePayout('400.00', day);
    p.failed = await bankfilePayout('500.00', day, SANDBOX.failure);
    p.batchA = await bankfilePayout('50.00', '2026-03-05');
    p.batchB = await bankfilePayout('60.00', '2026-03-05');
    const collection = await initiateCollection(m.client, { amount: '250.50' });
    collectionUtr = (await simulate(m.client, collection.txnId, 'SUCCESS', { utr: '777000111222' })).data
      ?.utr as string;
    const credit = await admin(t.url, 'POST', `/admin/v1/wallets/${m.merchant.wallet_id}/credits`, {
      amount: '5000.00',
      reference: 'TOPUP0302AB',
    });
    expect(credit.status).toBe(200);
    await createOperator(t.url, email('finance'), 'finance');
    await createOperator(t.url, email('viewer'), 'viewer');
    [finance, viewer] = await Promise.all([
      ConsoleSession.signIn(t.url, email('finance')),
      ConsoleSession.signIn(t.url, email('viewer')),
    ]);
  }, 180_000);
  afterAll(() => t.close());

  let dayRun: Run;

  it('imports a camt.053 and reconciles each entry: matched, amount_mismatch, unmatched, missing', async () => {
    dayRun = await imported(camt053(dayStatement(), '08'));
    expect(dayRun).toMatchObject({
      run_id: expect.stringMatching(/^RR[0-9A-Z]{26}$/),
      already_imported: false,
      transactions: 7,
      open_exceptions: 3,
      statement: {
        statement_id: 'STMT-2026-03-02',
        account: '50100012345678',
        format: 'camt.053',
        version: 'camt.053.001.08',
        period_from: '2026-03-02',
        period_to: '2026-03-02',
        opening: { type: 'OPBD', balance: '100000.00', date: '2026-03-02' },
        closing: { type: 'CLBD', balance: '105076.50', date: '2026-03-02' },
        credits: '5750.50',
        debits: '674.00',
        entries: 8,
        ignored_entries: 1,
        imported_by: 'operator:admin-token',
      },
      results: {
        // `open`: the result's exceptions not closed yet, so that a list names them (a run whose only open item
        // is a missing payout says "missing", not "unmatched").
        matched: { count: 5, amount: '6050.50', open: 0 },
        amount_mismatch: { count: 1, amount: '299.00', open: 1 },
        unmatched: { count: 1, amount: '75.00', open: 1 },
        missing: { count: 1, amount: '400.00', open: 1 },
      },
    });
    const all = await items(dayRun.run_id);
    // Open exceptions first, then the matched, each in statement order.
    expect(all.map((i) => [i.result, i.entry_index])).toEqual([
      ['amount_mismatch', 3],
      ['unmatched', 7],
      ['missing', null],
      ['matched', 1],
      ['matched', 2],
      ['matched', 4],
      ['matched', 5],
      ['matched', 6],
    ]);
    const byEntry = (n: number | null) => all.find((i) => i.entry_index === n) as Item;
    expect(byEntry(1)).toMatchObject({ matched_kind: 'payout', payout_id: p.byId?.id, amount: '100.00' });
    expect(byEntry(2)).toMatchObject({ matched_kind: 'payout', payout_id: p.byUtr?.id, utr: p.byUtr?.utr });
    expect(byEntry(3)).toMatchObject({
      matched_kind: 'payout',
      payout_id: p.mismatch?.id,
      amount: '299.00',
      payrail_amount: '300.00',
      note: "Payrail's amount is 300.00, the bank's 299.00",
      state: 'open',
    });
    expect(byEntry(4)).toMatchObject({ matched_kind: 'return', payout_id: p.failed?.id, return_reason: 'AC04' });
    expect(byEntry(5)).toMatchObject({ matched_kind: 'collection', collection_id: expect.stringMatching(/^CT/) });
    expect(byEntry(6)).toMatchObject({
      matched_kind: 'wallet_credit',
      wallet_id: m.merchant.wallet_id,
      wallet_credit_id: expect.stringMatching(/^\d+$/),
    });
    expect(byEntry(7)).toMatchObject({ matched_kind: null, remittance: 'ATM CASH', direction: 'debit' });
    expect(byEntry(null)).toMatchObject({
      result: 'missing',
      payout_id: p.missing?.id,
      amount: '400.00',
      value_date: '2026-03-02',
      note: 'SUCCESS in Payrail on 2026-03-02 (IST); no entry of the statement pays it',
    });
  });

  it('the same statement again changes nothing and answers the first import’s run', async () => {
    const before = await counts();
    const again = await upload(camt053(dayStatement(), '08'));
    expect(again.status).toBe(200);
    expect(again.body.runs).toEqual([expect.objectContaining({ run_id: dayRun.run_id, already_imported: true })]);
    expect(await counts()).toEqual(before);
    const list = await admin(t.url, 'GET', '/admin/v1/reconciliation/runs');
    expect((list.body.data as Run[]).filter((r) => r.run_id === dayRun.run_id)).toHaveLength(1);
    // Two imports of one new file at once record it once.
    const fresh = camt053({ date: '2026-03-10', entries: [{ direction: 'debit', amount: '5.00' }] });
    const both = await Promise.all([upload(fresh), upload(fresh)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 201]);
    const [one, two] = both.map((r) => (r.body.runs as Run[])[0]?.run_id);
    expect(one).toBe(two);
  });

  it('an MT940 and a camt.053.001.02 of the same day with the same entries give the same result', async () => {
    const shape = (list: Item[]) =>
      list.map((i) =>
        [i.result, i.entry_index, i.matched_kind, i.payout_id, i.collection_id, i.wallet_credit_id, i.amount].join(' '),
      );
    const expected = shape(await items(dayRun.run_id));
    const viaMt940 = await imported(mt940(dayStatement()), 'text/plain');
    const viaCamt02 = await imported(camt053(dayStatement(), '02'), 'text/xml');
    expect(viaMt940.statement).toMatchObject({ format: 'mt940', statement_id: 'STMT-2026-03-02/00001/001' });
    expect(viaCamt02.statement).toMatchObject({ version: 'camt.053.001.02' });
    for (const run of [viaMt940, viaCamt02]) {
      expect(run.results).toEqual(dayRun.results);
      expect(shape(await items(run.run_id))).toEqual(expected);
    }
  });

  it('counts each TxDtls of a batched entry as a transaction of its own', async () => {
    const run = await imported(
      camt053({
        date: '2026-03-05',
        entries: [
          {
            direction: 'debit',
            amount: '135.00',
            batch: [
              { amount: '50.00', e2e: p.batchA?.id },
              { amount: '60.00', utr: p.batchB?.utr },
              { amount: '25.00', e2e: 'SOMEONE-ELSE' },
            ],
          },
        ],
      }),
    );
    expect(run).toMatchObject({
      transactions: 3,
      results: {
        matched: { count: 2, amount: '110.00' },
        unmatched: { count: 1, amount: '25.00' },
        missing: { count: 0, amount: '0.00' },
      },
    });
    const all = await items(run.run_id);
    expect(all.map((i) => [i.result, i.entry_index, i.tx_index, i.payout_id])).toEqual([
      ['unmatched', 1, 3, null],
      ['matched', 1, 1, p.batchA?.id],
      ['matched', 1, 2, p.batchB?.id],
    ]);
  });

  it('refuses a statement that does not add up (422 naming the difference) and records nothing', async () => {
    const before = await counts();
    const res = await upload(
      camt053({
        date: '2026-03-06',
        opening: '1000.00',
        closing: '1040.00',
        entries: [
          { direction: 'credit', amount: '50.00' },
          { direction: 'debit', amount: '20.00' },
        ],
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: {
        code: 'statement_unbalanced',
        message:
          'statement STMT-2026-03-06 (account 50100012345678): opening 1000.00 + credits 50.00 − debits 20.00 = ' +
          '1030.00, closing says 1040.00 (difference 10.00)',
      },
    });
    const mt = await upload(
      mt940({ date: '2026-03-06', opening: '1000.00', closing: '999.99', entries: [] }),
      'text/plain; charset=utf-8',
    );
    expect(mt.status).toBe(422);
    expect((mt.body.error as { message: string }).message).toMatch(/closing says 999\.99 \(difference -0\.01\)$/);
    expect(await counts()).toEqual(before);
  });

  it('accepts a difference that is exactly the entries value-dated after the closing date, marking them', async () => {
    const run = await imported(
      camt053({
        date: '2026-03-07',
        opening: '1000.00',
        closing: '1010.00',
        entries: [
          { direction: 'credit', amount: '10.00' },
          { direction: 'credit', amount: '33.00', valueDate: '2026-03-09' },
        ],
      }),
    );
    expect(run).toMatchObject({ forward_value_items: 1, statement: { forward_value: '33.00', credits: '43.00' } });
    const all = await items(run.run_id);
    expect(all.map((i) => [i.entry_index, i.forward_value])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it('answers malformed input with a clear 4xx and records nothing', async () => {
    const before = await counts();
    const cases: [string, string, number, string, RegExp][] = [
      ['<Document', 'application/xml', 400, 'invalid_statement', /no ISO 20022 namespace/],
      [camt053({ entries: [] }).replace('</Stmt>', ''), 'application/xml', 400, 'invalid_statement', /not well-formed/],
      [
        `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${camt053({ entries: [] }).replace(/^<\?xml[^>]*>/, '')}`,
        'application/xml',
        400,
        'invalid_statement',
        /DOCTYPE and ENTITY declarations are refused/,
      ],
      [':20:X\n:25:A\n:61:garbage', 'text/plain', 400, 'invalid_statement', /:61: \(line 3\)/],
      ['{"statement": 1}', 'application/json', 415, 'unsupported_media_type', /application\/xml/],
      ['a=1', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type', /text\/plain/],
      ['', 'application/xml', 400, 'invalid_request', /Send the statement file/],
    ];
    for (const [body, type, status, code, message] of cases) {
      const res = await upload(body, type);
      expect({ type, status: res.status, code: (res.body.error as { code: string }).code }).toEqual({
        type,
        status,
        code,
      });
      expect((res.body.error as { message: string }).message).toMatch(message);
    }
    const huge = await upload(`${camt053({ entries: [] })}${' '.repeat(21 * 1024 * 1024)}`);
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: { code: 'body_too_large' } });
    expect(await counts()).toEqual(before);
  });

  it('imports a foreign bank’s statement with nothing of Payrail’s in it: every entry unmatched', async () => {
    const run = await imported(
      camt053({
        date: '2026-01-15',
        account: 'DE89370400440532013000',
        id: 'DEUT-2026-01-15',
        currency: 'EUR',
        opening: '-20.00',
        entries: [
          { direction: 'credit', amount: '1500.00', e2e: 'INV-2026-001', remittance: 'Rechnung 1' },
          { direction: 'debit', amount: '49.99', utr: 'SEPA123', bankRef: 'DEUT77' },
          { direction: 'debit', amount: '3.10' },
        ],
      }),
    );
    expect(run).toMatchObject({
      transactions: 3,
      statement: { currency: 'EUR', opening: { balance: '-20.00' }, closing: { balance: '1426.91' } },
      results: {
        matched: { count: 0 },
        amount_mismatch: { count: 0 },
        unmatched: { count: 3, amount: '1553.09' },
        missing: { count: 0 },
      },
    });
  });

  it('an exception is closed by finance with a reason, once; both are in the audit log', async () => {
    const all = await items(dayRun.run_id);
    const exception = all.find((i) => i.result === 'amount_mismatch') as Item;
    const matched = all.find((i) => i.result === 'matched') as Item;
    const close = (s: ConsoleSession, item: Item, reason: unknown) =>
      s.request('POST', `/admin/v1/reconciliation/runs/${dayRun.run_id}/items/${item.item_id}/close`, { reason });
    const denied = await close(viewer, exception, 'not mine to close');
    expect(denied.status).toBe(403);
    expect((await close(finance, exception, '   ')).status).toBe(400);
    const closed = await close(finance, exception, 'Bank charged 1.00 fee; confirmed with HDFC');
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body).toMatchObject({
      item_id: exception.item_id,
      state: 'closed',
      closed_by: email('finance'),
      closed_reason: 'Bank charged 1.00 fee; confirmed with HDFC',
      closed_at: expect.any(String),
    });
    expect((await close(finance, exception, 'again')).body).toMatchObject({ error: { code: 'already_closed' } });
    expect((await close(finance, matched, 'nothing to close')).body).toMatchObject({
      error: { code: 'not_an_exception' },
    });
    const missingItem = { ...exception, item_id: '999999999' };
    expect((await close(finance, missingItem, 'x')).status).toBe(404);
    const run = await admin(t.url, 'GET', `/admin/v1/reconciliation/runs/${dayRun.run_id}`);
    expect(run.body.open_exceptions).toBe(2);
    // Open exceptions come first, the closed one after them.
    expect((run.body.items as Item[]).slice(0, 3).map((i) => i.state)).toEqual(['open', 'open', 'closed']);
    const audit = await admin(t.url, 'GET', '/admin/v1/audit?limit=50');
    const entries = audit.body.data as { action: string; actor: string; detail: string; outcome: string }[];
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: 'reconciliation.close',
        actor: email('finance'),
        outcome: 'ok',
        detail: expect.stringContaining(
          `closed amount_mismatch item ${exception.item_id} (${p.mismatch?.id}): Bank charged 1.00 fee; confirmed with HDFC`,
        ),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ action: 'reconciliation.close', actor: email('viewer'), outcome: 'denied' }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: 'reconciliation.import',
        detail: expect.stringContaining(`imported STMT-2026-03-02 of 50100012345678 as run ${dayRun.run_id}`),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: 'reconciliation.import',
        outcome: 'failed',
        detail: expect.stringContaining('refused'),
      }),
    );
  });

  it('exports a run as CSV: every item, and no cell a spreadsheet would run as a formula', async () => {
    const run = await imported(
      camt053({
        date: '2026-03-08',
        entries: [
          { direction: 'credit', amount: '1.00', remittance: '=HYPERLINK("http://evil.example","x")' },
          { direction: 'credit', amount: '2.00', remittance: '@SUM(A1), +1, -2' },
        ],
      }),
    );
    const res = await fetch(`${t.url}/admin/v1/reconciliation/runs/${run.run_id}?format=csv`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="reconciliation-${run.run_id}.csv"`);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^item_id,result,state,entry_index,tx_index,direction,amount,currency,/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`,unmatched,open,1,1,credit,1.00,INR,`);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(lines[2]).toContain(`"'@SUM(A1), +1, -2"`);
  });

  it('viewers read runs; only finance imports; unknown runs are 404', async () => {
    const list = await viewer.request('GET', '/admin/v1/reconciliation/runs?limit=2');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const next = await viewer.request('GET', `/admin/v1/reconciliation/runs?limit=2&cursor=${list.body.next_cursor}`);
    const ids = [...(list.body.data as Run[]), ...(next.body.data as Run[])].map((r) => r.run_id);
    expect(new Set(ids).size).toBe(4);
    const refused: HttpResult = await http(t.url, 'POST', STATEMENTS, {
      rawBody: camt053({ date: '2026-03-09', entries: [] }),
      headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf, 'content-type': 'application/xml' },
    });
    expect(refused.status).toBe(403);
    const byFinance = await http(t.url, 'POST', STATEMENTS, {
      rawBody: camt053({ date: '2026-03-09', entries: [] }),
      headers: { cookie: finance.cookie, 'x-csrf-token': finance.csrf, 'content-type': 'application/xml' },
    });
    expect(byFinance.status).toBe(201);
    expect((byFinance.body.runs as Run[])[0]?.created_by).toBe(email('finance'));
    expect((await admin(t.url, 'GET', '/admin/v1/reconciliation/runs/RR00000000000000000000000000')).status).toBe(404);
    expect((await admin(t.url, 'GET', '/admin/v1/reconciliation/runs/nonsense')).status).toBe(404);
  });
});
