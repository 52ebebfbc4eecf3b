import type { Mode } from '../config.ts';
import type { Queryable } from '../store/Database.ts';
import { SettingsRepository } from '../store/repositories/SettingsRepository.ts';
import type { Clock } from '../clock.ts';

/** Settings keys: last start in sandbox mode, first start in live mode, the operator's acceptance (ISO times). */
const LAST_SANDBOX_USE = 'mode.sandbox_last_used';
const FIRST_LIVE_USE = 'mode.live_first_used';
const SANDBOX_DATA_ACCEPTED = 'mode.sandbox_data_accepted_for_live';

/** The database holds sandbox data and the server was asked to start live on it. */
export class SandboxDataInLiveError extends Error {
  constructor(since: string) {
    super(
      `this database was used in sandbox mode (last: ${since}); its simulated balances, payouts and collections ` +
        'would appear as real ones in live mode. Point DATABASE_URL (or PAYRAIL_DATA_DIR) at a fresh database for ' +
        'live mode; or, to keep this data knowingly, start once with PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE=true.',
    );
    this.name = 'SandboxDataInLiveError';
  }
}

/**
 * Records in the database the mode it is used in, and refuses to start live on a database that was used as a
 * sandbox unless the operator accepted that (PAYRAIL_ALLOW_SANDBOX_DATA_IN_LIVE=true once, recorded; a later
 * sandbox start needs a new acceptance). A database from before the mode was recorded counts as a sandbox
 * when it holds a payout of the sandbox rail.
 */
export async function checkDatabaseMode(
  q: Queryable,
  mode: Mode,
  allowSandboxDataInLive: boolean,
  clock: Clock,
): Promise<void> {
  const now = new Date(clock()).toISOString();
  if (mode === 'sandbox') {
    await SettingsRepository.set(q, LAST_SANDBOX_USE, now);
    return;
  }
  let sandboxUse = await SettingsRepository.get(q, LAST_SANDBOX_USE);
  if (!sandboxUse && !(await SettingsRepository.get(q, FIRST_LIVE_USE))) {
    if (await SettingsRepository.anyPayoutOnRail(q, 'sandbox')) sandboxUse = 'before the mode was recorded';
  }
  const accepted = await SettingsRepository.get(q, SANDBOX_DATA_ACCEPTED);
  // ISO-8601 times compare as text; "before the mode was recorded" is accepted by any acceptance.
  const acceptedAfterUse =
    accepted !== null && (sandboxUse === null || !/^\d/.test(sandboxUse) || accepted >= sandboxUse);
  if (sandboxUse && !acceptedAfterUse) {
    if (!allowSandboxDataInLive) throw new SandboxDataInLiveError(sandboxUse);
    await SettingsRepository.set(q, SANDBOX_DATA_ACCEPTED, now);
  }
  await SettingsRepository.setIfAbsent(q, FIRST_LIVE_USE, now);
}
