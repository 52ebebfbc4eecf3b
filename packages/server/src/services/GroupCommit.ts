/** What became of one item of a group: its value, or why it failed (the other items are not affected). */
export type ItemOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items handed in one by one are written together. The first item waits for the next turn of the
 * event loop (so that everything that becomes ready in the same turn, such as the answers of an in-process
 * connector to a whole claimed batch, joins it); while a write is under way the next items wait for it and then go
 * in the next write, together. Under load the writes grow; alone, an item is written at once. One write at a time:
 * the groups follow one another in the order their items came.
 *
 * `write` answers one outcome per item, in order; when it throws, every item of the group fails with that error.
 */
export class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private writing = false;
  private scheduled = false;

  constructor(
    private readonly write: (items: T[]) => Promise<ItemOutcome<R>[]>,
    /** The most items of one write; the rest go in the next. */
    private readonly maxItems = 256,
  ) {}

  /** Resolves once the item's write has committed, with its value; rejects with its own error. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Items handed in and not written yet (including those of the write under way). */
  get size(): number {
    return this.queue.length;
  }

  private schedule() {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run() {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const group = this.queue.splice(0, this.maxItems);
    try {
      let outcomes: ItemOutcome<R>[];
      try {
        outcomes = await this.write(group.map((w) => w.item));
      } catch (error) {
        outcomes = group.map(() => ({ ok: false, error }));
      }
      group.forEach((w, i) => {
        const outcome = outcomes[i] ?? { ok: false, error: new Error('group commit: no outcome for the item') };
        if (outcome.ok) w.resolve(outcome.value);
        else w.reject(outcome.error);
      });
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
