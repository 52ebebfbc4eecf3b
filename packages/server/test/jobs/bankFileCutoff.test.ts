import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankFileCutoff } from '../../src/jobs/BankFileCutoff.ts';
import { Metrics } from '../../src/observability/Metrics.ts';
import { BankFileConnector } from '../../src/rails/bankfile/BankFileConnector.ts';
import { readPain001 } from '../../src/rails/bankfile/pain001.ts';
import { FolderTransport } from '../../src/rails/bankfile/transport.ts';
import { ConnectorRegistry } from '../../src/rails/ConnectorRegistry.ts';
import { systemClock } from '../../src/clock.ts';
import { PayoutLifecycle } from '../../src/services/PayoutLifecycle.ts';
import { BANKFILE_ENV } from '../support/bankFiles.ts';
import { fundedMerchant, initiateOk, payoutRequest, SANDBOX } from '../support/payoutFixtures.ts';
import { ENGINES, startTestServer, type TestServer } from '../support/testServer.ts';

const quiet = { info() {}, warn() {} };

describe.each(ENGINES)('the bank-file cut-off (%s)', (engine) => {
  let t: TestServer;
  let dir: string;
  let cutoffs: BankFileCutoff[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-cut-'));
    // The server's own cut-off waits a day: these tests run cut-offs themselves, as several instances would.
    t = await startTestServer(engine, {
      env: { ...BANKFILE_ENV, PAYRAIL_BANKFILE_DIR: dir, PAYRAIL_BANKFILE_CUTOFFS: 'every 24h' },
    });
    const settings = t.config.connectors.bankfile!;
    cutoffs = [0, 1, 2].map(() => {
      const connector = new BankFileConnector(settings, new FolderTransport(dir));
      const lifecycle = new PayoutLifecycle(new ConnectorRegistry([connector], 'bankfile'), new Metrics(), {
        refundDelayMs: 0,
        clock: systemClock,
      });
      return new BankFileCutoff(
        t.db,
        lifecycle,
        connector.transport,
        settings.debtor,
        settings.cutoffs,
        quiet,
        systemClock,
      );
    });
  });

  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes no file when nothing waits', async () => {
    await Promise.all(cutoffs.map((c) => c.run()));
    expect(await readdir(join(dir, 'outbox'))).toEqual([]);
  });

  it('puts each payout in exactly one file when instances cut at the same time', async () => {
    const { merchant, client } = await fundedMerchant(t.url, 'v2');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const p = await initiateOk(
        client,
        payoutRequest('nested', {
          wallet_id: merchant.wallet_id,
          amount: `${i + 1}.0${i % 10}`,
          beneficiary_ifsc: SANDBOX.ifsc,
          beneficiary_acc_number: SANDBOX.success,
        }),
      );
      ids.push(p.transaction_id as string);
    }
    await Promise.all(cutoffs.map((c) => c.run()));
    await Promise.all(cutoffs.map((c) => c.run()));
    const files = await readdir(join(dir, 'outbox'));
    const inFiles = (
      await Promise.all(files.map(async (f) => readPain001(await readFile(join(dir, 'outbox', f)))))
    ).flatMap((f) => f.payments.map((p) => p.payoutId));
    expect(inFiles.sort()).toEqual([...ids].sort());
    const { rows } = await t.db.query<{ status: string; rail_reference: string }>(
      'SELECT status, rail_reference FROM payouts WHERE id = ANY($1)',
      [ids],
    );
    expect(rows.every((r) => r.status === 'PROCESSING' && /^PR/.test(r.rail_reference))).toBe(true);
    const { rows: recorded } = await t.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM bank_files WHERE delivered_at IS NOT NULL',
    );
    expect(Number(recorded[0]?.n)).toBe(files.length);
  });

  it('leaves a file cut by an instance that crashed to its lease, then delivers the same bytes', async () => {
    const { merchant, client } = await fundedMerchant(t.url, 'v2');
    const p = await initiateOk(
      client,
      payoutRequest('nested', {
        wallet_id: merchant.wallet_id,
        beneficiary_ifsc: SANDBOX.ifsc,
        beneficiary_acc_number: SANDBOX.success,
      }),
    );
    // The crash: cut and recorded, never written.
    const cut = await cutoffs[0]!.cut();
    expect(cut?.count).toBe(1);
    await cutoffs[1]!.run();
    expect(await readdir(join(dir, 'outbox'))).not.toContain(`PAYRAIL-${cut!.msgId}.xml`);
    await t.db.query(`UPDATE bank_files SET delivery_lease_until = now() - interval '1 second' WHERE msg_id = $1`, [
      cut!.msgId,
    ]);
    await cutoffs[1]!.run();
    expect(await readFile(join(dir, 'outbox', `PAYRAIL-${cut!.msgId}.xml`), 'utf8')).toBe(cut!.xml);
    const { rows } = await t.db.query<{ status: string; rail_reference: string }>(
      'SELECT status, rail_reference FROM payouts WHERE id = $1',
      [p.transaction_id],
    );
    expect(rows[0]).toEqual({ status: 'PROCESSING', rail_reference: cut!.msgId });
  });
});
