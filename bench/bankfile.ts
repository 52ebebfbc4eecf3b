import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { istDay } from '@payrail/protocol';
import pino from 'pino';
import { loadConfig } from '../packages/server/src/config.ts';
import { newId } from '../packages/server/src/domain/ids.ts';
import { BankFileCutoff } from '../packages/server/src/jobs/BankFileCutoff.ts';
import { BankFileInbox } from '../packages/server/src/jobs/BankFileInbox.ts';
import { Metrics } from '../packages/server/src/observability/Metrics.ts';
import { BankFileConnector } from '../packages/server/src/rails/bankfile/BankFileConnector.ts';
import { ConnectorRegistry } from '../packages/server/src/rails/ConnectorRegistry.ts';
import { createServer } from '../packages/server/src/server.ts';
import { BankNotifications } from '../packages/server/src/services/BankNotifications.ts';
import { systemClock } from '../packages/server/src/clock.ts';
import { PayoutLifecycle } from '../packages/server/src/services/PayoutLifecycle.ts';
import { adminCall } from './benchMerchant.ts';
import { freshStorage } from './benchServer.ts';

/**
 * Bank files at scale (BENCH_ONLY=bankfile), in this process: cutting one pain.001 of BENCH_BANKFILE_PAYOUTS
 * (default 10,000) waiting payouts (claim, write, deliver, move every payout to PROCESSING), then applying one
 * camt.054 of as many booked debits (every payout to SUCCESS, in one transaction). Peak RSS of this process is
 * sampled every 50 ms during each step.
 */
export const BANKFILE_PAYOUTS = Number(process.env.BENCH_BANKFILE_PAYOUTS ?? 10_000);
const ADMIN_TOKEN = 'bench-admin-token-of-at-least-32-characters';

export interface BankFileBenchResult {
  payouts: number;
  cutMs: number;
  cutBytes: number;
  cutPeakMb: number;
  applyMs: number;
  applyBytes: number;
  applyPeakMb: number;
}

async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, ms: performance.now() - started, peakMb: peak / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

const rupees = (paise: bigint) => `${paise / 100n}.${(paise % 100n).toString().padStart(2, '0')}`;

export async function benchBankFile(
  engine: 'pglite' | 'postgres',
  o: { databaseUrl?: string; log: (m: string) => void },
): Promise<BankFileBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'payrail-bench-bank-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const storage = await freshStorage(engine, 'bankfile', cleanups, o.databaseUrl);
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    PAYRAIL_CONNECTOR: 'bankfile',
    PAYRAIL_BANKFILE_DIR: dir,
    // The server's own loops stay idle: the bench runs the cut and the inbox itself.
    PAYRAIL_BANKFILE_CUTOFFS: 'every 24h',
    PAYRAIL_BANKFILE_SCAN: '24h',
    PAYRAIL_BANKFILE_DEBTOR_NAME: 'Bench Payouts',
    PAYRAIL_BANKFILE_DEBTOR_ACCOUNT: '50100012345678',
    PAYRAIL_BANKFILE_DEBTOR_IFSC: 'HDFC0000123',
    PAYRAIL_BANKFILE_INITIATING_PARTY: 'Bench',
    ...(engine === 'postgres' ? { DATABASE_URL: storage } : { PAYRAIL_DATA_DIR: storage }),
  };
  const config = loadConfig(env);
  const server = await createServer(config, { logger: pino({ level: 'silent' }), noWorker: true });
  try {
    const url = await server.listen();
    const m = await adminCall(url, ADMIN_TOKEN, 'POST', '/admin/v1/merchants', { name: 'Bank file bench' });
    const ids = Array.from({ length: BANKFILE_PAYOUTS }, () => newId('payout', Date.now()));
    const amounts = ids.map((_, i) => 10_000n + BigInt(i));
    const day = istDay(new Date());
    await server.db.query(
      `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
         beneficiary_account, beneficiary_ifsc, remarks, scheme, rail, ist_day, ist_month, created_at, updated_at)
       SELECT u.id, $2, $3, 'bank-bench-' || u.ord, u.amount, 'NEFT', 'Bench Payee', '123456789012', 'HDFC0001234',
              'bench payout ' || u.ord, 'v2', 'bankfile', $4, $5, now(), now()
         FROM unnest($1::text[], $6::int8[]) WITH ORDINALITY AS u (id, amount, ord)`,
      [ids, String(m.merchant_id), String(m.wallet_id), day, day.slice(0, 7), amounts.map(String)],
    );
    o.log(`${engine}: ${ids.length} payouts waiting`);
    const connector = new BankFileConnector(config.connectors.bankfile!);
    const registry = new ConnectorRegistry([connector], 'bankfile');
    const lifecycle = new PayoutLifecycle(registry, new Metrics(), { refundDelayMs: 0, clock: systemClock });
    const quiet = {
      info() {},
      warn(obj: object, msg: string) {
        o.log(`${msg} ${JSON.stringify(obj)}`);
      },
    };
    const cutoff = new BankFileCutoff(
      server.db,
      lifecycle,
      connector.transport,
      connector.settings.debtor,
      { every: 86_400_000 },
      quiet,
      systemClock,
    );
    const cut = await measured(() => cutoff.run(true));
    const { rows } = await server.db.query<{ msg_id: string; n: string; size: string }>(
      `SELECT f.msg_id, (SELECT count(*) FROM payouts WHERE status = 'PROCESSING') AS n, length(f.xml) AS size
         FROM bank_files f`,
    );
    if (rows.length !== 1 || Number(rows[0]?.n) !== ids.length) throw new Error(`cut: ${JSON.stringify(rows)}`);
    o.log(`${engine}: cut ${ids.length} payouts in ${cut.ms.toFixed(0)} ms`);

    const entries = ids
      .map(
        (id, i) =>
          `<Ntry><Amt Ccy="INR">${rupees(amounts[i] as bigint)}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
          `<AcctSvcrRef>B${i}</AcctSvcrRef><BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd>` +
          `<NtryDtls><TxDtls><Refs><EndToEndId>${id}</EndToEndId>` +
          `<ClrSysRef>${String(100_000_000_000 + i)}</ClrSysRef></Refs></TxDtls></NtryDtls></Ntry>`,
      )
      .join('\n');
    const camt = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
<GrpHdr><MsgId>BENCH</MsgId><CreDtTm>${new Date().toISOString()}</CreDtTm></GrpHdr><Ntfctn><Id>BENCH</Id>
<Acct><Id><Othr><Id>50100012345678</Id></Othr></Id></Acct>
${entries}
</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;
    await writeFile(join(dir, 'inbox', 'CAMT054-BENCH.xml'), camt);
    const inbox = new BankFileInbox(
      server.db,
      lifecycle,
      new BankNotifications(server.db, lifecycle, systemClock),
      null,
      connector.transport,
      86_400_000,
      quiet,
      systemClock,
    );
    const applied = await measured(() => inbox.handle('CAMT054-BENCH.xml'));
    const done = await server.db.query<{ n: string }>(`SELECT count(*) AS n FROM payouts WHERE status = 'SUCCESS'`);
    if (applied.value.kind !== 'applied' || Number(done.rows[0]?.n) !== ids.length) {
      throw new Error(`apply: ${JSON.stringify(applied.value)}, ${done.rows[0]?.n} SUCCESS`);
    }
    o.log(`${engine}: applied ${ids.length} entries in ${applied.ms.toFixed(0)} ms`);
    return {
      payouts: ids.length,
      cutMs: cut.ms,
      cutBytes: Number(rows[0]?.size),
      cutPeakMb: cut.peakMb,
      applyMs: applied.ms,
      applyBytes: Buffer.byteLength(camt),
      applyPeakMb: applied.peakMb,
    };
  } finally {
    await server.close();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
}

export function bankFileRows(engine: string, r: BankFileBenchResult): string[][] {
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  return [
    [engine, `cut pain.001 of ${r.payouts}`, r.cutMs.toFixed(0), mb(r.cutBytes), `${r.cutPeakMb.toFixed(0)} MB`],
    [
      engine,
      `apply camt.054 of ${r.payouts}`,
      r.applyMs.toFixed(0),
      mb(r.applyBytes),
      `${r.applyPeakMb.toFixed(0)} MB`,
    ],
  ];
}
