/** Items as they arrive (messages of a socket); `take` resolves with the first one wanted, waiting for more as they come. */
export class Inbox<T> {
  private readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();
  /** Why nothing more can arrive (the socket closed), once it cannot. */
  private ended: string | undefined;

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  /** Nothing more will arrive: a `take` still waiting fails now instead of at its timeout. */
  end(reason: string): void {
    this.ended = reason;
    this.wake();
  }

  get all(): readonly T[] {
    return this.items;
  }

  /** Removes and returns the first item that `match` accepts, waiting up to `timeoutMs` for it. */
  async take(match: (item: T) => boolean = () => true, timeoutMs = 15_000, what = 'a message'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.items.findIndex(match);
      if (index >= 0) return this.items.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0 || this.ended !== undefined) {
        throw new Error(`no ${what} (${this.ended ?? 'timed out'}); have ${JSON.stringify(this.items).slice(0, 2000)}`);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  private wake(): void {
    for (const wake of this.waiters) wake();
  }
}
