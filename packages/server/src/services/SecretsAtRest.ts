import type { Database } from '../store/Database.ts';
import { openDatabase } from '../store/openDatabase.ts';
import { MerchantRepository } from '../store/repositories/MerchantRepository.ts';
import { SECRET_SETTINGS, SettingsRepository } from '../store/repositories/SettingsRepository.ts';
import { SecretBox, SecretUnreadable } from '../store/SecretBox.ts';

/** Merchants rewritten per transaction by a start or a rotation. */
const BATCH = 200;
/** A rotation repeats its pass while rows change under it (instances still writing under the old key). */
const MAX_PASSES = 10;

export interface ResealReport {
  /** Merchants rewritten. */
  merchants: number;
  /** Secret settings (the JWT signing key) rewritten. */
  settings: number;
  /** Master key ids still found in the database afterwards. */
  keyIds: string[];
}

/**
 * Refuses a database holding values sealed under a key the box does not know (a wrong or missing
 * PAYRAIL_MASTER_KEY): a start must fail with a clear message, not serve garbage credentials.
 */
export async function checkMasterKeys(db: Database, box: SecretBox): Promise<string[]> {
  const used = await MerchantRepository.sealedKeyIds(db, SECRET_SETTINGS);
  const unknown = used.filter((id) => !box.keyIds.includes(id));
  if (unknown.length > 0) {
    const known = box.keyIds;
    throw new SecretUnreadable(
      `the database holds secrets sealed under master key id ${unknown.join(', ')}; ` +
        (known.length === 0
          ? 'PAYRAIL_MASTER_KEY is not set'
          : `PAYRAIL_MASTER_KEY${known.length > 1 ? ' / PAYRAIL_MASTER_KEY_PREVIOUS' : ''} ` +
            `${known.length > 1 ? 'are' : 'is'} key id ${known.join(' / ')}: configure the key the database was sealed with`),
      unknown[0] as string,
    );
  }
  return used;
}

async function reseal(db: Database, box: SecretBox, onlyPlain: boolean): Promise<ResealReport> {
  const merchants = new MerchantRepository(box);
  let resealed = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let after: string | null = '';
    let seen = 0;
    while (after !== null) {
      const from: string = after;
      const progress = await db.transaction((tx) => merchants.resealBatch(tx, from, BATCH, onlyPlain));
      resealed += progress.resealed;
      seen += progress.candidates;
      after = progress.next;
    }
    if (seen === 0) break;
  }
  let settings = 0;
  for (const key of SECRET_SETTINGS) {
    if (await SettingsRepository.resealSecret(db, box, key, onlyPlain)) settings++;
  }
  return { merchants: resealed, settings, keyIds: await MerchantRepository.sealedKeyIds(db, SECRET_SETTINGS) };
}

/**
 * Every start: checks the master keys, then seals what is still plain text (rows from before a master key was
 * configured) and fills missing lookup hashes. Idempotent; safe with several instances starting at once (each row
 * is written only if unchanged since read). Values under the previous key are left to `rotateMasterKey`.
 */
export async function prepareSecretsAtRest(db: Database, box: SecretBox): Promise<ResealReport> {
  await checkMasterKeys(db, box);
  return reseal(db, box, true);
}

/**
 * Master-key rotation (`payrail keys rotate-master`): seals every secret under the box's current key and
 * recomputes every lookup hash, in batches, while servers configured with both keys keep serving.
 */
export async function rotateMasterKey(db: Database, box: SecretBox): Promise<ResealReport> {
  if (box.currentKeyId === null)
    throw new SecretUnreadable('PAYRAIL_MASTER_KEY is not set: nothing to rotate to', null);
  await checkMasterKeys(db, box);
  return reseal(db, box, false);
}

export interface RotateOptions {
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL schema (tests). */
  schema?: string;
  masterKey?: Buffer;
  previousMasterKey?: Buffer;
}

/** `payrail keys rotate-master`: opens the database (the embedded one under its lock), rotates, closes. */
export async function rotateMasterKeyOf(options: RotateOptions): Promise<ResealReport & { keyId: string }> {
  if (!options.masterKey) throw new SecretUnreadable('PAYRAIL_MASTER_KEY (the new key) is not set', null);
  const box = SecretBox.withKeys(options.masterKey, options.previousMasterKey);
  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir, schema: options.schema });
  try {
    return { ...(await rotateMasterKey(db, box)), keyId: box.currentKeyId as string };
  } finally {
    await db.close();
  }
}
