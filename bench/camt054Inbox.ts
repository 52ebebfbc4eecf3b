import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptJson, istDateTime, istDay, istDayStartOf } from '@payrail/protocol';
import { readPain001 } from '../packages/server/src/rails/bankfile/pain001.ts';
import { adminCall, fundedBenchMerchant } from './benchMerchant.ts';
import { startBenchServer } from './benchServer.ts';
import { benchPayout, rssOf, send, sleep } from './common.ts';

/**
 * A large camt.054 through a real server's inbox (BENCH_ONLY=camt054, issue 28): the server (as `npm start` runs it,
 * bank files in a folder) pays BENCH_CAMT054_PAYOUTS (default 2,000) payouts into cut files; this process then
 * writes a camt.054 of BENCH_CAMT054_MB (default 60) megabytes into its inbox, most of whose entries name no payout
 * (customers' credits, charges, other systems' debits) and some book the payouts, and times it from the rename into
 * inbox/ until the server has moved it out (scans every 200 ms). The server's RSS is sampled every 50 ms. Targets:
 * peak RSS under 300 MB on PostgreSQL; on PGlite (whose engine is most of the server's memory) a growth under 150 MB.
 */
export const CAMT054_MB = Number(process.env.BENCH_CAMT054_MB ?? 60);
export const CAMT054_PAYOUTS = Number(process.env.BENCH_CAMT054_PAYOUTS ?? 2000);
export const CAMT054_TARGETS = { postgresPeakMb: 300, pgliteGrowthMb: 150 } as const;
const SCAN = '200ms';
const CONNECTIONS = 8;

export interface Camt054BenchResult {
  bytes: number;
  entries: number;
  payouts: number;
  ms: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  state: string;
  refused: number;
}

const rupees = (paise: bigint) => `${paise / 100n}.${(paise % 100n).toString().padStart(2, '0')}`;

/** Entries of the account that name no payout: customers' credits, charges and sweeps, another system's debits. */
function otherEntry(n: number, day: string): string {
  const head = (amount: string, direction: string) =>
    `<Ntry><NtryRef>${n}</NtryRef><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd>` +
    `<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>` +
    `<AcctSvcrRef>X${n}</AcctSvcrRef>`;
  const kind = n % 10;
  if (kind < 6) {
    return (
      `${head(`${1000 + (n % 90_000)}.${String(n % 100).padStart(2, '0')}`, 'CRDT')}` +
      `<BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>CUST-${n}</EndToEndId>` +
      `<ClrSysRef>N${String(200_000_000_000 + n)}</ClrSysRef></Refs><RltdPties><Dbtr><Pty><Nm>Customer ${n} Traders</Nm>` +
      `</Pty></Dbtr><DbtrAcct><Id><Othr><Id>${String(500_000_000_000 + n)}</Id></Othr></Id></DbtrAcct></RltdPties>` +
      `<RmtInf><Ustrd>Invoice ${n} settlement for goods and services</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`
    );
  }
  if (kind < 9) {
    return `${head(`${1 + (n % 500)}.${String(n % 100).padStart(2, '0')}`, 'DBIT')}<BkTxCd><Prtry><Cd>CHRG</Cd></Prtry></BkTxCd><AddtlNtryInf>Account charges and sweeps ${n}</AddtlNtryInf></Ntry>\n`;
  }
  return (
    `${head(`${50 + (n % 9000)}.00`, 'DBIT')}<BkTxCd><Prtry><Cd>RTGS</Cd></Prtry></BkTxCd><NtryDtls><TxDtls>` +
    `<Refs><EndToEndId>NOTPROVIDED</EndToEndId><ClrSysRef>R${String(300_000_000_000 + n)}</ClrSysRef></Refs>` +
    `<RltdPties><Cdtr><Pty><Nm>Vendor ${n}</Nm></Pty></Cdtr></RltdPties></TxDtls></NtryDtls></Ntry>\n`
  );
}

function payoutEntry(n: number, day: string, p: { id: string; amount: bigint; msgId: string }): string {
  const amount = rupees(p.amount);
  return (
    `<Ntry><NtryRef>${n}</NtryRef><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>` +
    `<BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt><AcctSvcrRef>B${n}</AcctSvcrRef>` +
    `<BkTxCd><Prtry><Cd>NEFT</Cd></Prtry></BkTxCd><NtryDtls><TxDtls><Refs><MsgId>${p.msgId}</MsgId>` +
    `<EndToEndId>${p.id}</EndToEndId><ClrSysRef>${String(100_000_000_000 + n)}</ClrSysRef></Refs>` +
    `<Amt Ccy="INR">${amount}</Amt><RltdPties><Cdtr><Pty><Nm>Bench Beneficiary</Nm></Pty></Cdtr></RltdPties>` +
    `</TxDtls></NtryDtls></Ntry>\n`
  );
}

/**
 * Writes the camt.054 to `path` (streamed: the bench holds no copy of it), the payouts' entries spread evenly among
 * the others; answers its size and number of entries.
 */
async function writeCamt054(
  path: string,
  targetBytes: number,
  payouts: { id: string; amount: bigint; msgId: string }[],
): Promise<{ bytes: number; entries: number }> {
  const now = new Date();
  const day = istDay(now);
  // 18:00 IST that day.
  const created = istDateTime(new Date(istDayStartOf(now).getTime() + 18 * 60 * 60 * 1000));
  const out = createWriteStream(path);
  let bytes = 0;
  const write = async (s: string) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  await write(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">` +
      `<BkToCstmrDbtCdtNtfctn>\n<GrpHdr><MsgId>BENCH-${randomBytes(4).toString('hex')}</MsgId>` +
      `<CreDtTm>${created}</CreDtTm></GrpHdr>\n<Ntfctn><Id>BENCH</Id><CreDtTm>${created}</CreDtTm>` +
      `<Acct><Id><Othr><Id>50100012345678</Id></Othr></Id></Acct>\n`,
  );
  // The payouts' entries at even distances in bytes.
  const spacing = targetBytes / Math.max(1, payouts.length);
  let entries = 0;
  let next = 0;
  while (bytes < targetBytes - 64 || next < payouts.length) {
    entries++;
    const p = bytes >= (next + 0.5) * spacing ? payouts[next] : undefined;
    if (p) next++;
    await write(p ? payoutEntry(entries, day, p) : otherEntry(entries, day));
  }
  await write('</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>\n');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { bytes, entries };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export async function benchCamt054(
  engine: 'pglite' | 'postgres',
  o: { databaseUrl?: string; env: NodeJS.ProcessEnv; adminToken: string; log: (m: string) => void },
): Promise<Camt054BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'payrail-bench-camt054-'));
  const server = await startBenchServer(engine, {
    ...o,
    settings: {
      PAYRAIL_CONNECTOR: 'bankfile',
      PAYRAIL_BANKFILE_DIR: dir,
      PAYRAIL_BANKFILE_CUTOFFS: 'every 2s',
      PAYRAIL_BANKFILE_SCAN: SCAN,
      PAYRAIL_BANKFILE_DEBTOR_NAME: 'Bench Payouts',
      PAYRAIL_BANKFILE_DEBTOR_ACCOUNT: '50100012345678',
      PAYRAIL_BANKFILE_DEBTOR_IFSC: 'HDFC0000123',
      PAYRAIL_BANKFILE_INITIATING_PARTY: 'Bench',
      PAYRAIL_TOKEN_TTL_SECONDS: '3600',
    },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    // The payouts, paid through the server's own cut files.
    const m = await fundedBenchMerchant(server.url, o.adminToken, 'camt.054 bench', '100000000.00');
    const keys = { apiKey: m.apiKey, secretKey: m.secretKey };
    const target = new URL(server.url);
    const prefix = randomBytes(4).toString('hex');
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (sent < CAMT054_PAYOUTS) {
          const i = sent++;
          // Amounts that use every paisa digit: 1.01 to 99.99.
          const payout = {
            ...benchPayout(m.walletId, `c54${prefix}-${i}`),
            amount: rupees(101n + ((BigInt(i) * 7919n) % 9899n)),
          };
          const { body } = await send(agent, target, {
            method: 'POST',
            path: '/payout/v1/initiate',
            headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ payload: encryptJson(payout, 'v2', keys) }),
          });
          const answer = JSON.parse(body.toString('utf8')) as { resp_code?: number };
          if (answer.resp_code !== 2000) throw new Error(`initiation ${i}: ${body.toString('utf8')}`);
        }
      }),
    );
    o.log(`camt054: ${CAMT054_PAYOUTS} payouts initiated; waiting for their cut files`);
    const deadline = performance.now() + 300_000;
    for (;;) {
      const files = (await adminCall(server.url, o.adminToken, 'GET', '/admin/v1/bankfiles?limit=500')).data as {
        delivered_at: string | null;
        payout_states: Record<string, number>;
      }[];
      const processing = files.reduce((n, f) => n + (f.delivered_at ? (f.payout_states.PROCESSING ?? 0) : 0), 0);
      if (processing === CAMT054_PAYOUTS) break;
      if (performance.now() > deadline) throw new Error(`camt054: ${processing} payouts PROCESSING after 300 s`);
      await sleep(250);
    }
    const payouts: { id: string; amount: bigint; msgId: string }[] = [];
    for (const name of await readdir(join(dir, 'outbox'))) {
      const file = readPain001(await readFile(join(dir, 'outbox', name)));
      for (const p of file.payments) payouts.push({ id: p.payoutId, amount: p.amount, msgId: file.msgId });
    }
    if (payouts.length !== CAMT054_PAYOUTS) throw new Error(`camt054: ${payouts.length} payouts in the outbox`);

    const name = 'CAMT054-BENCH.xml';
    const part = join(dir, 'inbox', `.${name}.part`);
    const written = await writeCamt054(part, CAMT054_MB * 1024 * 1024, payouts);
    o.log(
      `camt054: ${(written.bytes / 2 ** 20).toFixed(1)} MB, ${written.entries} entries (${payouts.length} naming payouts)`,
    );
    await sleep(1000);
    const pid = server.child.pid;
    const rssBefore = rssOf(pid) ?? 0;
    let peak = rssBefore;
    const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 50);
    const started = performance.now();
    let ms: number;
    try {
      await rename(part, join(dir, 'inbox', name));
      for (;;) {
        if (!(await exists(join(dir, 'inbox', name)))) break;
        if (performance.now() - started > 600_000) throw new Error('camt054: still in the inbox after 600 s');
        await sleep(20);
      }
      ms = performance.now() - started;
    } finally {
      clearInterval(timer);
    }
    peak = Math.max(peak, rssOf(pid) ?? 0);
    const inbound = (await adminCall(server.url, o.adminToken, 'GET', '/admin/v1/bankfiles/inbound')).data as {
      name: string;
      state: string;
      reason: string | null;
      entries: number;
      refused: number;
    }[];
    const record = inbound.find((f) => f.name === name);
    const files = (await adminCall(server.url, o.adminToken, 'GET', '/admin/v1/bankfiles?limit=500')).data as {
      payout_states: Record<string, number>;
    }[];
    const success = files.reduce((n, f) => n + (f.payout_states.SUCCESS ?? 0), 0);
    if (record?.state !== 'applied' || success !== CAMT054_PAYOUTS) {
      throw new Error(`camt054: ${JSON.stringify(record)?.slice(0, 500)}; ${success} payouts SUCCESS`);
    }
    o.log(
      `camt054: applied in ${(ms / 1000).toFixed(1)} s, server RSS ${(rssBefore / 2 ** 20).toFixed(0)} → peak ` +
        `${(peak / 2 ** 20).toFixed(0)} MB; ${record.entries} entries applied, ${record.refused} refused`,
    );
    return {
      bytes: written.bytes,
      entries: written.entries,
      payouts: payouts.length,
      ms,
      rssBeforeMb: rssBefore / 2 ** 20,
      rssPeakMb: peak / 2 ** 20,
      state: record.state,
      refused: record.refused,
    };
  } finally {
    agent.destroy();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The table row: time, the server's RSS before and at its peak, against the engine's target. */
export function camt054Row(engine: 'pglite' | 'postgres', r: Camt054BenchResult): string[] {
  const growth = r.rssPeakMb - r.rssBeforeMb;
  const met =
    engine === 'postgres' ? r.rssPeakMb < CAMT054_TARGETS.postgresPeakMb : growth < CAMT054_TARGETS.pgliteGrowthMb;
  return [
    engine,
    `camt.054 ${(r.bytes / 2 ** 20).toFixed(1)} MB, ${r.entries.toLocaleString('en')} entries, ` +
      `${r.payouts.toLocaleString('en')} payouts`,
    (r.ms / 1000).toFixed(1),
    `${r.rssBeforeMb.toFixed(0)} → ${r.rssPeakMb.toFixed(0)} MB (+${growth.toFixed(0)})`,
    engine === 'postgres'
      ? `peak < ${CAMT054_TARGETS.postgresPeakMb} MB`
      : `growth < ${CAMT054_TARGETS.pgliteGrowthMb} MB`,
    met ? 'yes' : 'NO',
  ];
}
