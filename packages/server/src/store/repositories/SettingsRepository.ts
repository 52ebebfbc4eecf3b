import type { Queryable } from '../Database.ts';
import { SEALED_PREFIX, type SecretBox } from '../SecretBox.ts';

/** Settings that hold a secret, sealed by the SecretBox (docs/operator/secrets-at-rest.md). */
export const SECRET_SETTINGS = ['jwt_signing_key'] as const;
export type SecretSetting = (typeof SECRET_SETTINGS)[number];
const settingContext = (key: string) => `settings:${key}`;

export const SettingsRepository = {
  /** Returns the stored value of `key`, storing `candidate` first if there is none (first writer wins). */
  async getOrCreate(q: Queryable, key: string, candidate: string): Promise<string> {
    await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, candidate]);
    const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return (rows[0] as { value: string }).value;
  },

  /** getOrCreate of a secret setting: `candidate` is stored sealed; the value returned is opened. */
  async getOrCreateSecret(q: Queryable, box: SecretBox, key: SecretSetting, candidate: string): Promise<string> {
    const stored = await SettingsRepository.getOrCreate(q, key, box.seal(candidate, settingContext(key)));
    return box.open(stored, settingContext(key));
  },

  /**
   * Seals a secret setting again under the box's current key when it is not already (plain, or `onlyPlain`
   * false and under the previous key); written only if unchanged since read. True when it was rewritten.
   */
  async resealSecret(q: Queryable, box: SecretBox, key: SecretSetting, onlyPlain: boolean): Promise<boolean> {
    const stored = await SettingsRepository.get(q, key);
    if (stored === null || box.currentKeyId === null) return false;
    if (onlyPlain ? stored.startsWith(SEALED_PREFIX) : !box.needsReseal(stored)) return false;
    const sealed = box.seal(box.open(stored, settingContext(key)), settingContext(key));
    const { rowCount } = await q.query('UPDATE settings SET value = $3 WHERE key = $1 AND value = $2', [
      key,
      stored,
      sealed,
    ]);
    return rowCount > 0;
  },

  async get(q: Queryable, key: string): Promise<string | null> {
    const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return rows[0]?.value ?? null;
  },

  async setIfAbsent(q: Queryable, key: string, value: string): Promise<void> {
    await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
  },

  async set(q: Queryable, key: string, value: string): Promise<void> {
    await q.query(
      'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
      [key, value],
    );
  },

  /** True when some payout was ever sent on `rail` (databases from before the mode was recorded). */
  async anyPayoutOnRail(q: Queryable, rail: string): Promise<boolean> {
    const { rows } = await q.query('SELECT 1 FROM payouts WHERE rail = $1 LIMIT 1', [rail]);
    return rows.length > 0;
  },
};
