/**
 * Runs tasks with at most `limit` in flight per key, the rest waiting in arrival order; a slot freed passes straight
 * to the next waiting task. Keys with nothing in flight take no memory. Used for:
 *
 * - one merchant's initiations, sent to PostgreSQL a few at a time (PayoutService): they all lock the same wallet
 *   and allowance rows, and twenty backends queued on one row lock spent 3.2–3.7 ms of database CPU per initiation
 *   (issue 13's hot wallet), against ~0.45 ms without the crowd. Only a performance measure: the database still
 *   decides every money rule, on any number of instances;
 * - the worker's calls to one connector over the network (PayoutStepper, keyed by connector name).
 */
export class KeyedQueue {
  private readonly lanes = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiting: [] }));
    if (lane.running >= this.limit) await new Promise<void>((resolve) => lane.waiting.push(resolve));
    else lane.running++;
    try {
      return await task();
    } finally {
      const next = lane.waiting.shift();
      // The slot passes straight to the next task; the lane goes away when nothing runs or waits.
      if (next) next();
      else if (--lane.running === 0) this.lanes.delete(key);
    }
  }

  /** Keys with a task in flight (tests). */
  get size(): number {
    return this.lanes.size;
  }
}
