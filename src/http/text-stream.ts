import { Readable } from 'node:stream';

/**
 * A response body written from pieces of text as the client takes them. Not in object mode,
 * Readable.from's default: there its buffer counts pieces, and holds 16 of them whatever their
 * size (16 documents or history steps of up to 16 MB each, ahead of a slow client); here it counts
 * bytes, and the next piece is asked for once the last has mostly gone out.
 */
export function textStream(pieces: Iterable<string | Buffer> | AsyncIterable<string | Buffer>): Readable {
  return Readable.from(pieces, { objectMode: false });
}
