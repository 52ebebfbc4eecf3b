import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { istDateTime } from '@payrail/protocol';
import pino from 'pino';
import { systemClock } from '../packages/server/src/clock.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { virtualAccountNumber } from '../packages/server/src/domain/virtualAccount.ts';
import { BankFileInbox } from '../packages/server/src/jobs/BankFileInbox.ts';
import { Metrics } from '../packages/server/src/observability/Metrics.ts';
import { BankFileConnector } from '../packages/server/src/rails/bankfile/BankFileConnector.ts';
import { ConnectorRegistry } from '../packages/server/src/rails/ConnectorRegistry.ts';
import { createServer } from '../packages/server/src/server.ts';
import { BankFileDeposits } from '../packages/server/src/services/BankFileDeposits.ts';
import { BankNotifications } from '../packages/server/src/services/BankNotifications.ts';
import { PayoutLifecycle } from '../packages/server/src/services/PayoutLifecycle.ts';
import { adminCall } from './benchMerchant.ts';
import { appName, freshStorage } from './benchServer.ts';
import { cpuMsOf } from './common.ts';

/**
 * Deposits from a bank file at scale (BENCH_ONLY=deposits), in this process: one camt.054 of BENCH_DEPOSITS (default
 * 10,000) booked credits to the virtual accounts of BENCH_DEPOSIT_WALLETS (default 100) merchants, fee-free as
 * deposits are without a DEPOSIT rule (BENCH_DEPOSIT_PRICED=1 prices every other merchant's), each with its
 * deposit.credited webhook, applied through the bank-file inbox in one transaction (issue 31's target: under 5 s on
 * PostgreSQL); then the same credits again in another file (every UTR credited already: nothing written).
 */
export const DEPOSITS = Number(process.env.BENCH_DEPOSITS ?? 10_000);
const WALLETS = Number(process.env.BENCH_DEPOSIT_WALLETS ?? 100);
/** BENCH_DEPOSIT_PRICED=1: every other merchant's plan prices DEPOSIT (a fee and its GST per deposit). */
const PRICED = process.env.BENCH_DEPOSIT_PRICED === '1';
const ADMIN_TOKEN = 'bench-admin-token-of-at-least-32-characters';
/** Issue 31: 10,000 deposits of one camt.054 applied in under 5 s on PostgreSQL. */
const TARGET_MS = 5_000;

export interface DepositBenchResult {
  deposits: number;
  wallets: number;
  applyMs: number;
  /** CPU time of the apply: this process plus its PostgreSQL backends (what the wall time is on an idle machine). */
  applyCpuMs: number | null;
  againMs: number;
  fileBytes: number;
}

const rupees = (paise: bigint) => `${paise / 100n}.${(paise % 100n).toString().padStart(2, '0')}`;

function camt054(msgId: string, credits: { va: string; utr: string; amount: bigint }[]): string {
  const entries = credits
    .map(
      (c, i) =>
        `<Ntry><Amt Ccy="INR">${rupees(c.amount)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
        `<AcctSvcrRef>B${i}</AcctSvcrRef><BkTxCd><Prtry><Cd>NEFT-CR</Cd></Prtry></BkTxCd><NtryDtls><TxDtls>` +
        `<Refs><EndToEndId>NOTPROVIDED</EndToEndId><ClrSysRef>${c.utr}</ClrSysRef></Refs>` +
        `<Amt Ccy="INR">${rupees(c.amount)}</Amt><CdtDbtInd>CRDT</CdtDbtInd>` +
        `<RltdPties><Dbtr><Pty><Nm>Remitter ${i}</Nm></Pty></Dbtr>` +
        `<DbtrAcct><Id><Othr><Id>${String(50_100_000_000_000 + i)}</Id></Othr></Id></DbtrAcct>` +
        `<CdtrAcct><Id><Othr><Id>${c.va}</Id></Othr></Id></CdtrAcct></RltdPties>` +
        `<RltdAgts><DbtrAgt><FinInstnId><ClrSysMmbId><MmbId>HDFC0000123</MmbId></ClrSysMmbId></FinInstnId></DbtrAgt></RltdAgts>` +
        `<RmtInf><Ustrd>Invoice ${i}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>
<GrpHdr><MsgId>${msgId}</MsgId><CreDtTm>${istDateTime(new Date())}</CreDtTm></GrpHdr><Ntfctn><Id>${msgId}</Id>
<Acct><Id><Othr><Id>50100099990000</Id></Othr></Id></Acct>
${entries}
</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;
}

export async function benchDeposits(
  engine: 'pglite' | 'postgres',
  o: { databaseUrl?: string; log: (m: string) => void },
): Promise<DepositBenchResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'payrail-bench-deposits-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const storage = await freshStorage(engine, 'deposits', cleanups, o.databaseUrl);
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    PAYRAIL_ADMIN_TOKEN: ADMIN_TOKEN,
    PAYRAIL_CONNECTOR: 'bankfile',
    PAYRAIL_BANKFILE_DIR: dir,
    // The server's own loops stay idle: the bench runs the inbox itself.
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
    const merchants: string[] = [];
    for (let i = 0; i < WALLETS; i++) {
      const m = await adminCall(url, ADMIN_TOKEN, 'POST', '/admin/v1/merchants', { name: `Deposit bench ${i}` });
      merchants.push(String(m.merchant_id));
      // Each deposit's webhook is written with it (never sent: the worker does not run).
      await adminCall(url, ADMIN_TOKEN, 'PATCH', `/admin/v1/merchants/${String(m.merchant_id)}`, {
        collection_callback_url: 'https://merchant.example/hooks',
      });
      if (PRICED && i % 2 === 0) {
        await adminCall(url, ADMIN_TOKEN, 'PUT', `/admin/v1/merchants/${String(m.merchant_id)}/pricing`, {
          name: 'Deposits',
          rules: {
            DEPOSIT: {
              slabs: [
                { up_to: '1000.00', flat: '2.00' },
                { bps: 10, max: '25.00' },
              ],
            },
          },
        });
      }
    }
    const { rows: wallets } = await server.db.query<{ va_seq: bigint }>(
      'SELECT va_seq FROM wallets WHERE merchant_id = ANY($1::text[]) ORDER BY id',
      [merchants],
    );
    const vas = wallets.map((w) => virtualAccountNumber(config.virtualAccounts.prefix, BigInt(w.va_seq)));
    const run = randomBytes(3).toString('hex').toUpperCase();
    const credits = Array.from({ length: DEPOSITS }, (_, i) => ({
      va: vas[i % vas.length] as string,
      utr: `N${run}${String(i).padStart(10, '0')}`,
      amount: 50_000n + BigInt(i),
    }));
    const connector = new BankFileConnector(config.connectors.bankfile!);
    await connector.transport.prepare();
    const first = camt054(`DEP-${run}-1`, credits);
    await writeFile(join(dir, 'inbox', 'CAMT054-DEPOSITS-1.xml'), first);
    await writeFile(join(dir, 'inbox', 'CAMT054-DEPOSITS-2.xml'), camt054(`DEP-${run}-2`, credits));

    const lifecycle = new PayoutLifecycle(new ConnectorRegistry([connector], 'bankfile'), new Metrics(), {
      refundDelayMs: 0,
      clock: systemClock,
    });
    const quiet = {
      info() {},
      warn(obj: object, msg: string) {
        o.log(`${msg} ${JSON.stringify(obj)}`);
      },
    };
    const inbox = new BankFileInbox(
      server.db,
      lifecycle,
      new BankNotifications(server.db, lifecycle, systemClock),
      null,
      connector.transport,
      86_400_000,
      quiet,
      systemClock,
      new BankFileDeposits({
        virtualAccounts: config.virtualAccounts,
        gstRateBp: config.gstRateBp,
        clock: systemClock,
      }),
    );
    // The machine may be shared: CPU time (this process and its PostgreSQL backends) beside the wall time.
    const backends =
      engine === 'postgres'
        ? (
            await server.db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
              appName('deposits'),
            ])
          ).rows.map((r) => r.pid)
        : [];
    const cpu = () => {
      const own = process.cpuUsage();
      let ms = (own.user + own.system) / 1000;
      for (const pid of backends) ms += cpuMsOf(pid) ?? 0;
      return ms;
    };
    let cpuMs: number | null = null;
    const timed = async (name: string) => {
      const started = performance.now();
      const startedCpu = cpu();
      const result = await inbox.handle(name);
      const ms = performance.now() - started;
      cpuMs = cpu() - startedCpu;
      if (result.kind !== 'applied' || result.entries !== DEPOSITS || result.refused !== 0) {
        throw new Error(`${name}: ${JSON.stringify(result)}`);
      }
      return ms;
    };
    const applyMs = await timed('CAMT054-DEPOSITS-1.xml');
    const applyCpuMs = cpuMs;
    const { rows } = await server.db.query<{ n: string; total: string }>(
      "SELECT count(*) AS n, sum(amount) AS total FROM deposits WHERE source = 'bank_file'",
    );
    const expected = credits.reduce((sum, c) => sum + c.amount, 0n);
    if (Number(rows[0]?.n) !== DEPOSITS || BigInt(rows[0]?.total ?? 0) !== expected) {
      throw new Error(`deposits: ${JSON.stringify(rows)}`);
    }
    o.log(
      `${engine}: credited ${DEPOSITS} deposits to ${WALLETS} wallets in ${applyMs.toFixed(0)} ms (CPU ${applyCpuMs === null ? '?' : (applyCpuMs as number).toFixed(0)} ms)`,
    );
    const againMs = await timed('CAMT054-DEPOSITS-2.xml');
    const after = await server.db.query<{ n: string }>('SELECT count(*) AS n FROM deposits');
    if (Number(after.rows[0]?.n) !== DEPOSITS) throw new Error(`again: ${after.rows[0]?.n} deposits`);
    const ledger = await adminCall(url, ADMIN_TOKEN, 'GET', '/admin/v1/ledger/verify');
    if (ledger.ok !== true) throw new Error(`ledger: ${JSON.stringify(ledger)}`);
    return { deposits: DEPOSITS, wallets: WALLETS, applyMs, applyCpuMs, againMs, fileBytes: Buffer.byteLength(first) };
  } finally {
    await server.close();
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  }
}

export function depositRows(engine: string, r: DepositBenchResult): string[][] {
  const mb = `${(r.fileBytes / 1024 / 1024).toFixed(1)} MB`;
  const target = engine === 'postgres' ? `< ${TARGET_MS} ms` : '';
  const met = engine === 'postgres' ? (r.applyMs < TARGET_MS ? 'yes' : 'NO') : '';
  return [
    [
      engine,
      `camt.054 of ${r.deposits} deposits to ${r.wallets} wallets${PRICED ? ' (half priced)' : ''}`,
      r.applyMs.toFixed(0),
      r.applyCpuMs === null ? '' : r.applyCpuMs.toFixed(0),
      mb,
      target,
      met,
    ],
    [engine, 'the same credits again (all credited already)', r.againMs.toFixed(0), '', mb, '', ''],
  ];
}
