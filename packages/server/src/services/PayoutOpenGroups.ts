import type { Payout } from '../domain/Payout.ts';
import type { Database } from '../store/Database.ts';
import { PayoutRepository, type OpenTerms } from '../store/repositories/PayoutRepository.ts';
import { GroupCommit, type ItemOutcome } from './GroupCommit.ts';

interface OpenRequest {
  payout: Payout;
  terms: OpenTerms;
}

/**
 * The most initiations of one statement. Each is a subtransaction (its exception block), and PostgreSQL keeps at most
 * 64 of a transaction's subtransaction ids in shared memory: past that, every other backend's snapshot has to look
 * the transaction up in pg_subtrans while it runs. A group also holds its wallets' locks until it commits.
 */
const MAX_GROUP = 64;

/**
 * Single initiations, opened in groups (issue 34): the initiations that reach the store while the previous group's
 * statement is under way (or in the same turn of the event loop) go to the database together, as one statement
 * (`PayoutRepository.openMany`, function `payout_open_many`): one round trip, one statement's overhead and one commit
 * for all of them, where each alone paid its own. Alone, an initiation is sent at once: nothing waits for company
 * (the group commit of the worker, `GroupCommit`, does the grouping).
 *
 * Each element gets exactly the answer it would get alone: the function opens them one after the other with the same
 * function a lone initiation calls, each in its own subtransaction.
 *
 * A merchant's initiations always go through the same lane (by a hash of its id), so a merchant has at most one
 * statement in flight per instance and its payouts are applied in the order they arrived here. That also keeps a
 * hot wallet's lock queue short, which `KeyedQueue` (two a merchant) did before the groups. On PostgreSQL, two lanes
 * let two groups of different merchants run at once; PGlite has one connection, where one lane makes the largest
 * groups.
 */
export class PayoutOpenGroups {
  private readonly lanes: GroupCommit<OpenRequest, Payout | null>[];

  constructor(
    private readonly db: Database,
    /** Called with the size of each group written (the metrics' histogram). */
    private readonly observe: (size: number) => void = () => {},
    laneCount = db.engine === 'postgres' ? 2 : 1,
  ) {
    this.lanes = Array.from(
      { length: Math.max(1, laneCount) },
      () => new GroupCommit((items) => this.write(items), MAX_GROUP),
    );
  }

  /**
   * Opens one payout, in a group with whatever else is in flight: its payout, null when the merchant already used
   * the sender_id; throws PayoutOpenRefused for a refusal, or whatever else failed it.
   */
  open(payout: Payout, terms: OpenTerms): Promise<Payout | null> {
    return this.lanes[laneOf(payout.merchantId ?? '', this.lanes.length)]!.submit({ payout, terms });
  }

  private async write(items: OpenRequest[]): Promise<ItemOutcome<Payout | null>[]> {
    this.observe(items.length);
    const outcomes = await PayoutRepository.openMany(this.db, items);
    return outcomes.map((o) => (o.ok ? { ok: true, value: o.payout } : { ok: false, error: o.error }));
  }
}

/** A stable lane for a merchant (FNV-1a of its id). */
function laneOf(key: string, lanes: number): number {
  if (lanes === 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % lanes;
}
