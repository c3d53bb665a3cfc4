import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a transaction's (or other long) work runs on the server's thread before other requests get a turn. */
export const WRITE_SLICE_MS = 20;

/**
 * Lets the event loop run between the steps of long work on the server's thread. A transaction of
 * thousands of mutations is one chain of promises, which never gives other requests a turn; it
 * pauses at most every `sliceMs`. On SQLite the writer stays held meanwhile: other writes queue
 * behind it as they would, reads go on.
 */
export class TimeSlices {
  private readonly sliceMs: number;
  private sliceEnd: number;

  constructor(sliceMs = WRITE_SLICE_MS) {
    this.sliceMs = sliceMs;
    this.sliceEnd = performance.now() + sliceMs;
  }

  async pause(): Promise<void> {
    if (performance.now() < this.sliceEnd) return;
    await nextTurn();
    this.sliceEnd = performance.now() + this.sliceMs;
  }
}
