import { AppError } from '../errors.ts';

/**
 * Open listen connections per caller (a user, a token, or an address), bounded. The rate limit
 * counts connections as they open, not how many stay open: without this bound one credential
 * could hold thousands of listeners, each judged on every change and each buffering up to
 * `maxBufferedBytes` for a slow reader. Per instance: a caller's connections are spread over
 * the instances anyway.
 */
export class ListenerSlots {
  private readonly open = new Map<string, number>();
  private readonly limit: () => number;

  constructor(limit: () => number) {
    this.limit = limit;
  }

  /** Takes a slot for `caller`, or throws 429 when it has all of its own; the returned function gives it back (once). */
  take(caller: string): () => void {
    const limit = this.limit();
    const held = this.open.get(caller) ?? 0;
    if (held >= limit) {
      throw new AppError('RATE_LIMITED', `Too many open listeners: at most ${limit} at once per user, token or address (LISTENERS_PER_CALLER); close one first`);
    }
    this.open.set(caller, held + 1);
    let returned = false;
    return () => {
      if (returned) return;
      returned = true;
      const left = (this.open.get(caller) ?? 1) - 1;
      if (left > 0) this.open.set(caller, left);
      else this.open.delete(caller);
    };
  }
}
