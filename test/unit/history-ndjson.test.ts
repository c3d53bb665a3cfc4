// The NDJSON answer of the History API ends with an error line when reading fails after the
// answer began, as Sanity's does; a line the failure cut short is ended first, so that every line
// before the error's stays apart from it.
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ndjson } from '../../src/routes/data/history-transactions.ts';
import { notFound } from '../../src/errors.ts';
import { memoryLog } from '../helpers/memory-log.ts';

async function answer(pieces: string[], failure: Error): Promise<{ text: string; logged: Record<string, unknown>[] }> {
  const log = memoryLog();
  async function* lines(): AsyncGenerator<string> {
    yield* pieces;
    throw failure;
  }
  let text = '';
  for await (const piece of ndjson(lines(), pino(log.stream))) text += piece;
  return { text, logged: log.lines };
}

describe('the History API answer after a failure', () => {
  it('ends a line cut short before the error line, and logs an unexpected failure once', async () => {
    const { text, logged } = await answer(['{"id":"a"}\n{"id":"b","effects":{', '"x":{}'], new Error('the database went away'));
    expect(text.split('\n')).toEqual(['{"id":"a"}', '{"id":"b","effects":{"x":{}', '{"error":{"type":"internalError","description":"An internal error occurred"}}', '']);
    expect(logged.filter((line) => line.msg === 'reading the transaction history failed')).toHaveLength(1);
  });

  it('adds no empty line after whole lines, and names a known failure without logging it', async () => {
    const { text, logged } = await answer(['{"id":"a"}\n'], notFound('Revision "r" not found'));
    expect(text).toBe('{"id":"a"}\n{"error":{"type":"NOT_FOUND","description":"Revision \\"r\\" not found"}}\n');
    expect(logged).toEqual([]);
  });
});
