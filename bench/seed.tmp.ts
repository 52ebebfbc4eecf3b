import { createPgliteDatabase } from '../packages/server/src/store/pgliteDatabase.ts';
import { migrate } from '../packages/server/src/store/migrate.ts';
import { writeFileSync } from 'node:fs';
const dir = process.argv[2]!;
const db = await createPgliteDatabase(dir);
await migrate(db);
const merchants = [];
for (let i = 0; i < 20; i++) {
  const id = 'MR' + String(i).padStart(26, '0');
  const w = 'WL' + String(i).padStart(26, '0');
  await db.query(
    "insert into merchants (id, name, api_key, secret_key, webhook_secret) values ($1, 'x', $2, 's', 'w')",
    [id, 'k' + i],
  );
  await db.query('insert into wallets (id, merchant_id) values ($1, $2)', [w, id]);
  await db.query(
    "insert into ledger_entries (wallet_id, kind, amount, balance_after) values ($1, 'credit', 100000000000, 0)",
    [w],
  );
  merchants.push({ merchantId: id, walletId: w });
}
await db.close();
writeFileSync(process.argv[3]!, JSON.stringify(merchants));
