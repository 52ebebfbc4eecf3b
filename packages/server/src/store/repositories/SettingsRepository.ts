import type { Queryable } from '../Database.ts';

export const SettingsRepository = {
  /** Returns the stored value of `key`, storing `candidate` first if there is none (first writer wins). */
  async getOrCreate(q: Queryable, key: string, candidate: string): Promise<string> {
    await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, candidate]);
    const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return (rows[0] as { value: string }).value;
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
