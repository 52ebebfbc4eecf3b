import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankFileCutoff } from '../../src/jobs/BankFileCutoff.ts';
import { BankFileInbox } from '../../src/jobs/BankFileInbox.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { BankFileConnector } from '../../src/rails/bankfile/BankFileConnector.ts';
import { FolderTransport } from '../../src/rails/bankfile/transport.ts';
import { ConnectorRegistry } from '../../src/rails/ConnectorRegistry.ts';
import { systemClock } from '../../src/clock.ts';
import { BankNotifications } from '../../src/services/BankNotifications.ts';
import { PayoutLifecycle } from '../../src/services/PayoutLifecycle.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { fundedMerchant, initiateOk, payoutRequest, SANDBOX } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const quiet = { info() {}, warn() {} };

const entry = (id: string, amount: string, direction: 'DBIT' | 'CRDT', extra = '') =>
  `<Ntry><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
   <AcctSvcrRef>REF${id.slice(-6)}</AcctSvcrRef><BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd><NtryDtls><TxDtls>
   <Refs><EndToEndId>${id}</EndToEndId><ClrSysRef>UTR${id.slice(-9)}</ClrSysRef></Refs>${extra}</TxDtls></NtryDtls></Ntry>`;

const camt054 = (entries: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
  <GrpHdr><MsgId>SET-BASED</MsgId><CreDtTm>2026-11-25T10:00:00+05:30</CreDtTm></GrpHdr>
  <Ntfctn><Id>N</Id><Acct><Id><Othr><Id>50100012345678</Id></Othr></Id></Acct>${entries}</Ntfctn>
</BkToCstmrDbtCdtNtfctn></Document>`;

/**
 * A bank file applied set-based (jobs/BankFileEntries.ts) keeps what the per-payout path guaranteed: entries read in
 * order against the payouts as the earlier ones leave them (a payout accepted, paid and returned by one file), each
 * payout's history and webhook events in order, the return's refund in the ledger, an amount mismatch kept as a
 * rail error, the file applied once; and the delivery after such a file moves only the payouts still waiting.
 */
describe.each(ENGINES)('a bank file applied set-based (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let cutoff: BankFileCutoff;
  let inbox: BankFileInbox;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-set-'));
    // The server's own loops wait a day: the test cuts and reads the inbox itself.
    t = await startTestServer(engine, {
      env: {
        ...BANKFILE_ENV,
        PAYRAIL_BANKFILE_DIR: dir,
        PAYRAIL_BANKFILE_CUTOFFS: 'every 24h',
        PAYRAIL_BANKFILE_SCAN: '24h',
      },
    });
    const settings = t.config.connectors.bankfile!;
    const connector = new BankFileConnector(settings, new FolderTransport(dir));
    const lifecycle = new PayoutLifecycle(new ConnectorRegistry([connector], 'bankfile'), new Metrics(), {
      refundDelayMs: 60_000,
      clock: systemClock,
    });
    cutoff = new BankFileCutoff(
      t.db,
      lifecycle,
      connector.transport,
      settings.debtor,
      settings.cutoffs,
      quiet,
      systemClock,
    );
    inbox = new BankFileInbox(
      t.db,
      lifecycle,
      new BankNotifications(t.db, lifecycle, systemClock),
      null,
      connector.transport,
      86_400_000,
      quiet,
      systemClock,
    );
    await connector.transport.prepare();
  });

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies a file’s entries in order per payout, with history, events, refund and rail error', async () => {
    const { merchant, client } = await fundedMerchant(t.url, 'v2');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await initiateOk(
        client,
        payoutRequest('nested', {
          wallet_id: merchant.wallet_id,
          amount: '150.25',
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.success,
          callback_url: 'http://127.0.0.1:9/hooks',
        }),
      );
      ids.push(p.transaction_id as string);
    }
    const [a, b, c, d] = ids as [string, string, string, string];
    // Cut and recorded, its delivery not recorded yet: the bank's answer is the evidence of delivery.
    const cut = await cutoff.cut();
    expect(cut?.count).toBe(4);
    const balance = async () =>
      (await t.db.query<{ balance: bigint }>('SELECT balance FROM wallets WHERE id = $1', [merchant.wallet_id])).rows[0]
        ?.balance as bigint;
    const before = await balance();

    const file = camt054(
      entry(a, '150.25', 'DBIT') +
        entry(b, '150.24', 'DBIT') +
        entry(c, '150.25', 'DBIT') +
        entry(a, '150.25', 'CRDT', '<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>') +
        entry(c, '150.25', 'DBIT') +
        entry(b, '150.24', 'DBIT'),
    );
    await writeFile(join(dir, 'inbox', 'SET.xml'), file);
    const result = await inbox.handle('SET.xml');
    expect(result).toMatchObject({ kind: 'applied', entries: 6, refused: 2 });

    const { rows } = await t.db.query<{ id: string; status: string; rail_error: string | null; utr: string }>(
      'SELECT id, status, rail_error, utr, rail_reference FROM payouts WHERE id = ANY($1)',
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(a)).toMatchObject({ status: 'REFUNDED', rail_error: null, utr: `UTR${a.slice(-9)}` });
    // A debit of another amount moves nothing, not even the delivery it would otherwise be the evidence of.
    expect(byId.get(b)?.status).toBe('INITIATED');
    expect(byId.get(b)?.rail_error).toContain('150.24');
    expect(byId.get(c)).toMatchObject({ status: 'SUCCESS', utr: `UTR${c.slice(-9)}` });
    expect(byId.get(d)?.status).toBe('INITIATED');
    // The return's refund, once.
    expect((await balance()) - before).toBe(15_025n);

    const history = async (id: string) =>
      (
        await t.db.query<{ type: string; from_status: string | null; to_status: string | null; actor: string }>(
          'SELECT type, from_status, to_status, actor FROM transaction_events WHERE subject_id = $1 ORDER BY id',
          [id],
        )
      ).rows
        .filter((e) => e.type !== 'created')
        .map((e) => (e.type === 'status' ? `${e.from_status}→${e.to_status} ${e.actor}` : `${e.type} ${e.actor}`));
    expect(await history(a)).toEqual([
      'INITIATED→PROCESSING rail:bankfile',
      'PROCESSING→SUCCESS rail:bankfile',
      'SUCCESS→REFUNDED rail:bankfile',
    ]);
    // The same mismatch twice is recorded once.
    expect(await history(b)).toEqual(['error rail:bankfile']);
    expect(await history(c)).toEqual(['INITIATED→PROCESSING rail:bankfile', 'PROCESSING→SUCCESS rail:bankfile']);

    const events = async (id: string) =>
      (
        await t.db.query<{ type: string }>('SELECT type FROM webhook_deliveries WHERE subject_id = $1 ORDER BY seq', [
          id,
        ])
      ).rows.map((r) => r.type);
    expect(await events(a)).toEqual(['payout.processing', 'payout.success', 'payout.refunded']);
    expect(await events(b)).toEqual([]);
    expect(await events(c)).toEqual(['payout.processing', 'payout.success']);
    const snapshot = (
      await t.db.query<{ snapshot: string }>(
        `SELECT snapshot FROM webhook_deliveries WHERE subject_id = $1 AND type = 'payout.success'`,
        [c],
      )
    ).rows[0]?.snapshot as string;
    expect(JSON.parse(snapshot)).toMatchObject({ transaction_id: c, status: 'SUCCESS' });

    // The same bytes again change nothing.
    await writeFile(join(dir, 'inbox', 'SET-AGAIN.xml'), file);
    expect(await inbox.handle('SET-AGAIN.xml')).toEqual({ kind: 'known' });

    // The delivery now recorded moves only the payout still waiting, with the file's MsgId.
    await cutoff.deliver(cut!.msgId, cut!.xml);
    const after = await t.db.query<{ id: string; status: string; rail_reference: string }>(
      'SELECT id, status, rail_reference FROM payouts WHERE id = ANY($1) ORDER BY id',
      [ids],
    );
    expect(after.rows.find((r) => r.id === d)).toMatchObject({ status: 'PROCESSING', rail_reference: cut!.msgId });
    expect(after.rows.find((r) => r.id === a)?.status).toBe('REFUNDED');
    expect(await events(a)).toHaveLength(3);
  });
});
