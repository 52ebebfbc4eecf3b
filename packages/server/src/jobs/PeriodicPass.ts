/**
 * A pass that runs every `everyMs` on each instance running the worker, and on demand (`run`): never two at once
 * (a call while one runs gets that one), the next timed pass `everyMs` after the last ended, and a failed pass
 * handed to `onError` and tried again at the next. The timer never keeps the process alive; `stop` waits for the
 * pass under way. What a pass does, and whether it is due, is the caller's: this only says how often to ask.
 */
export class PeriodicPass<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T | null> | null = null;
  private halted = false;

  constructor(
    private readonly everyMs: number,
    private readonly pass: () => Promise<T>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** True once `stop` was called: a long pass checks it between its steps. */
  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    if (this.timer || this.halted) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.halted) return;
    this.timer = setTimeout(() => {
      void this.run().finally(() => this.schedule());
    }, this.everyMs);
    this.timer.unref?.();
  }

  /** One pass now (null when it failed); never overlaps itself. */
  run(): Promise<T | null> {
    this.running ??= this.pass()
      .catch((err: unknown) => {
        this.onError(err);
        return null;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
