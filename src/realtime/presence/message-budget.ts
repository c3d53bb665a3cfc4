/**
 * A token bucket: `burst` messages at once, refilled at `perSecond`. Each connection has one, so a
 * client that sends faster than Studio ever does is refused instead of costing the server work.
 */
export class MessageBudget {
  private readonly limits: { readonly messagesPerSecond: number; readonly messageBurst: number };
  private readonly now: () => number;
  private tokens: number;
  private updatedAt: number;

  constructor(limits: { readonly messagesPerSecond: number; readonly messageBurst: number }, now: () => number = Date.now) {
    this.limits = limits;
    this.now = now;
    this.tokens = limits.messageBurst;
    this.updatedAt = now();
  }

  /** Spends one message; false when none is left. */
  take(): boolean {
    const now = this.now();
    const { messagesPerSecond, messageBurst } = this.limits;
    this.tokens = Math.min(messageBurst, this.tokens + ((now - this.updatedAt) / 1000) * messagesPerSecond);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
