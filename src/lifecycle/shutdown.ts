import type { Logger } from '../logging.ts';

export interface ShutdownOptions {
  /** Past this, the process exits with 1 whatever is still running. */
  timeoutMs: number;
  log: Pick<Logger, 'info' | 'error'>;
  exit?: (code: number) => void;
  signals?: readonly NodeJS.Signals[];
}

/**
 * The first SIGTERM or SIGINT closes `server` gracefully and exits 0 once it is closed; a close that
 * fails or takes longer than `timeoutMs` exits 1, and so does a second signal (an impatient Ctrl-C).
 * Returns a function that removes the handlers.
 */
export function closeOnSignals(server: { close(): Promise<void> }, options: ShutdownOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.log.error({ signal }, 'second signal during shutdown: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    options.log.info({ signal }, 'shutting down: not ready from now on, finishing the requests and jobs under way');
    const timer = setTimeout(() => {
      options.log.error({ timeoutMs: options.timeoutMs }, 'shutdown took longer than SHUTDOWN_TIMEOUT_MS: exiting with work unfinished');
      exit(1);
    }, options.timeoutMs);
    server.close().then(
      () => {
        clearTimeout(timer);
        options.log.info('shut down cleanly');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        options.log.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
