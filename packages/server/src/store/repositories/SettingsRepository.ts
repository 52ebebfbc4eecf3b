import type { Queryable } from '../Database.ts';

export const SettingsRepository = {
  /** Returns the stored value of `key`, storing `candidate` first if there is none (first writer wins). */
  async getOrCreate(q: Queryable, key: string, candidate: string): Promise<string> {
    await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, candidate]);
    const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return (rows[0] as { value: string }).value;
  },
};
