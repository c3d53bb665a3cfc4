/** What GET /ready reports. */
export interface ReadinessReport {
  ready: boolean;
  /** `ready`; `draining` once the instance is shutting down; `unavailable` when a dependency does not answer. */
  status: 'ready' | 'draining' | 'unavailable';
  checks: Record<string, 'ok' | 'failed'>;
}

export type ReadinessCheck = () => Promise<unknown>;

/**
 * Whether this instance should get traffic: a load balancer takes it out while a dependency it
 * needs does not answer (each check has `timeoutMs`), and from the moment it starts shutting down,
 * before it stops accepting requests.
 */
export class Readiness {
  private readonly checks: Readonly<Record<string, ReadinessCheck>>;
  private readonly timeoutMs: number;
  private drainingSince: number | undefined;

  constructor(checks: Record<string, ReadinessCheck>, timeoutMs = 2_000) {
    this.checks = checks;
    this.timeoutMs = timeoutMs;
  }

  /** From now on the instance reports `draining`; it cannot become ready again. */
  drain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  async report(): Promise<ReadinessReport> {
    const results = await Promise.all(
      Object.entries(this.checks).map(async ([name, check]) => [name, (await withTimeout(check(), this.timeoutMs)) ? 'ok' : 'failed'] as const),
    );
    const checks = Object.fromEntries(results);
    const healthy = results.every(([, result]) => result === 'ok');
    const status = this.draining ? 'draining' : healthy ? 'ready' : 'unavailable';
    return { ready: status === 'ready', status, checks };
  }
}

/** True when `promise` resolves within `ms`; false when it rejects or takes longer. */
async function withTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
