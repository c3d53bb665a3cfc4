import type { FastifyReply } from 'fastify';
import { AppError } from '../errors.ts';
import { heapShare } from '../heap-share.ts';
import { parsedJsonBytes } from '../json/json-weight.ts';
import { ByteBudget } from './byte-budget.ts';

const MIB = 1024 * 1024;

/**
 * What a request holds besides its parsed body, per byte of body: the document written out as
 * JSON for the store, the change log's copy of the mutations, the index rows and the answer.
 */
const WRITE_COPIES = 4;

/** Bodies of at most this many characters wait for memory without taking from the waiting texts' budget. */
const SMALL_TEXT = 64 * 1024;

/** How long a parsed-to-be body waits for memory before it is refused with 503. */
const WAIT_MS = 30_000;

export interface BodyMemoryLimits {
  /** What the parsed bodies of requests in progress, and what they lead to, may hold together. */
  workBytes: number;
  /** What the text of bodies waiting for `workBytes` may hold together. */
  waitingTextBytes: number;
}

/** The default limits: shares of the heap (HEAP_LIMIT_MB), 160 and 64 MiB at its default of 512. */
export function bodyMemoryLimits(): BodyMemoryLimits {
  return { workBytes: heapShare(5 / 16), waitingTextBytes: heapShare(1 / 8) };
}

/**
 * The memory that JSON request bodies take once they have arrived. A body is small on the wire
 * and large in the heap: 16 MB of `[{},{},…]` parse into 290 MB, and 30 mutations of 16 MB sent
 * at once ended the server. Before a body is parsed it takes what it will hold (its parse,
 * estimated from the text, and the copies a write makes) from a budget shared by every request,
 * and gives it back when its answer has gone. A body that needs more than the whole budget is
 * refused with 413; others wait their turn, holding only their text, which has a budget of its
 * own: a body that finds that full too is refused with 503 and Retry-After.
 */
export class BodyMemory {
  private readonly work: ByteBudget;
  private readonly waitingText: ByteBudget;

  constructor(limits: BodyMemoryLimits = bodyMemoryLimits()) {
    this.work = new ByteBudget(limits.workBytes, WAIT_MS, 'The server is busy with large requests; try again shortly');
    this.waitingText = new ByteBudget(limits.waitingTextBytes, WAIT_MS, 'The server is busy with large requests; try again shortly');
  }

  /**
   * Resolves once `text` may be parsed (at once when memory is free: most bodies never wait), or
   * throws the 413 or 503. What it takes is given back when the reply has been sent or the client
   * has gone.
   */
  admit(text: string, reply: FastifyReply): Promise<void> | undefined {
    const bytes = parsedJsonBytes(text) + WRITE_COPIES * text.length;
    if (bytes > this.work.capacity) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The body would take about ${Math.ceil(bytes / MIB)} MiB of memory to parse and write, and a request may take ${Math.floor(this.work.capacity / MIB)} MiB ` +
          '(5/16 of the heap: HEAP_LIMIT_MB): send fewer objects and arrays, or the changes in several requests',
      );
    }
    if (this.work.tryTake(bytes)) {
      reply.raw.once('close', () => this.work.give(bytes));
      return undefined;
    }
    // Two bytes per character: a text with any character beyond Latin-1 is held in two. Small
    // texts wait without counting: the rate limits bound how many of them one caller sends.
    const textBytes = text.length > SMALL_TEXT ? 2 * text.length : 0;
    if (!this.waitingText.tryTake(textBytes)) throw this.waitingText.busy();
    // Listened for now: a client that leaves while its body waits gives back what it is given.
    let taken = false;
    let gone = false;
    reply.raw.once('close', () => {
      gone = true;
      if (taken) this.work.give(bytes);
    });
    return this.work.take(bytes).then(
      () => {
        this.waitingText.give(textBytes);
        taken = true;
        if (gone) this.work.give(bytes);
      },
      (error: unknown) => {
        this.waitingText.give(textBytes);
        throw error;
      },
    );
  }
}
