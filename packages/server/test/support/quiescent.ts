import type { Queryable } from '../../src/store/Database.ts';
import { eventually } from './webhookReceiver.ts';

/**
 * Waits until the background work has nothing left to do now: no webhook delivery pending and no job due (a job
 * being run is still in its table). What a test sees after that is final: anything more would have to be
 * recorded first, since events and next steps are written in the transaction of the change that causes them.
 * This replaces sleeping "long enough for anything extra to show".
 */
export async function quiescent(db: Queryable, timeoutMs = 10_000): Promise<void> {
  await eventually(async () => {
    const { rows } = await db.query<{ busy: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE state = 'pending')
           OR EXISTS (SELECT 1 FROM jobs WHERE run_at <= now()) AS busy`,
    );
    return rows[0]?.busy === false;
  }, timeoutMs);
}
