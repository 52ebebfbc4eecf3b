import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { encryptJson, formatPaise } from '@payrail/protocol';
import { migrateRaw, openRaw, seedMerchants, type RawDb, type SeedMerchant } from './baselineDb.ts';

/**
 * Baseline (b): a bare node:http server doing the work of one `GET /payout/v1/status?transaction_id=…` and
 * nothing else: check the bearer token's HS256 signature and expiry (the request's only cryptographic input),
 * look the merchant up by primary key (as TokenService.verify does), look the payout up by primary key,
 * encrypt the transaction object with V2 and answer the envelope. No framework, validation, logging, metrics
 * or rate limiting. It works on its own copy of the schema (a fresh PostgreSQL schema or PGlite directory,
 * migrated at start); the benchmark copies the merchants and payouts it will ask about in through `POST /_seed`,
 * and signs tokens with the same PAYRAIL_JWT_SECRET as the server.
 * Usage: bareStatus.ts <port> <postgres url with search_path | pglite data dir>.
 */

export interface BareSeed {
  merchants: SeedMerchant[];
  payouts: { transactionId: string; merchantId: string; walletId: string; senderId: string }[];
}

async function seed(db: RawDb, body: BareSeed) {
  await seedMerchants(db, body.merchants, 100n);
  await db.transaction(async (tx) => {
    for (const p of body.payouts) {
      await tx.query(
        `INSERT INTO payouts (id, merchant_id, wallet_id, sender_id, amount, payment_mode, beneficiary_name,
           beneficiary_account, beneficiary_ifsc, bank_name, remarks, scheme, status, status_message, rail, ist_day,
           ist_month, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 100, 'IMPS', 'Bench Beneficiary', '100000000001', 'SBOX0000001',
           'Payrail Sandbox Bank', 'bench', 'v2', 'INITIATED', 'Payout accepted and queued for the bank', 'sandbox',
           '2026-01-01', '2026-01', now(), now())
         ON CONFLICT DO NOTHING`,
        [p.transactionId, p.merchantId, p.walletId, p.senderId],
      );
    }
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function verifyJwt(token: string, key: Buffer): { sub: string; cv: number } | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2] as string, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as {
    sub: string;
    cv: number;
    exp: number;
  };
  return payload.exp * 1000 > Date.now() ? payload : null;
}

async function main() {
  const [portText, target] = process.argv.slice(2) as [string, string];
  const db = await openRaw(target, 20);
  await migrateRaw(db);
  if (!process.env.PAYRAIL_JWT_SECRET) throw new Error('PAYRAIL_JWT_SECRET must be the server’s');
  const key = Buffer.from(process.env.PAYRAIL_JWT_SECRET, 'utf8');

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
      if (url.pathname === '/_seed' && req.method === 'POST') {
        await seed(db, JSON.parse(await readBody(req)) as BareSeed);
        return send(res, 200, { seeded: true });
      }
      const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      const claims = auth ? verifyJwt(auth[1] as string, key) : null;
      if (!claims) return send(res, 401, { resp_code: 4001, resp_message: 'Invalid or expired token' });
      const merchant = (await db.query('SELECT * FROM merchants WHERE id = $1', [claims.sub])).rows[0];
      if (!merchant || merchant.status !== 'active' || Number(merchant.credentials_version) !== claims.cv) {
        return send(res, 401, { resp_code: 4001, resp_message: 'Invalid or expired token' });
      }
      const id = url.searchParams.get('transaction_id') ?? '';
      const p = (await db.query('SELECT * FROM payouts WHERE id = $1', [id])).rows[0];
      if (!p || p.merchant_id !== merchant.id) {
        return send(res, 404, { resp_code: 4103, resp_message: 'Transaction not found' });
      }
      const wire = {
        transaction_id: p.id,
        sender_id: p.sender_id,
        wallet_id: p.wallet_id,
        amount: formatPaise(p.amount as bigint),
        payment_mode: p.payment_mode,
        remarks: p.remarks,
        status: p.status,
        status_message: p.status_message,
        utr_number: p.utr,
        callback_url: p.callback_url ?? '',
        beneficiary: {
          beneficiary_name: p.beneficiary_name,
          beneficiary_acc_number: p.beneficiary_account,
          beneficiary_ifsc: p.beneficiary_ifsc,
          bank_name: p.bank_name,
        },
        timestamps: {
          created_at: (p.created_at as Date).toISOString(),
          updated_at: (p.updated_at as Date).toISOString(),
        },
      };
      const keys = { apiKey: merchant.api_key as string, secretKey: merchant.secret_key as string };
      send(res, 200, {
        resp_code: 2000,
        resp_message: 'Transaction fetched successfully',
        data: encryptJson(wire, 'v2', keys),
      });
    })().catch((err) => send(res, 500, { resp_code: 5000, resp_message: String(err) }));
  });
  server.keepAliveTimeout = 72_000;
  server.listen(Number(portText), '127.0.0.1');
}

void main().catch((err) => {
  process.stderr.write(`bare status server failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
