// Running a compiled query against a source: in rounds while an asynchronous source answers
// PENDING (see ../source.ts), and, for queries made from one scan document by document
// (../planner/stream.ts), a page of documents at a time.
import { GroqSourceError } from '../errors.ts';
import type { ScanAnswer, ScanRequest } from '../planner/scan-plan.ts';
import { exactInAnyOrder, STREAM_PARAMETER, type StreamPlan } from '../planner/stream.ts';
import type { QueryTrace } from '../planner/trace.ts';
import type { DocumentSource } from '../source.ts';
import { compileQuery } from './compile.ts';
import { scanRequests } from './compile-scan.ts';
import { toJson } from './json.ts';
import { Scope, type Run } from './scope.ts';
import type { DateTime } from './values.ts';
import type { EvaluationBudget } from './budget.ts';

/** An asynchronous source that keeps answering PENDING after this many loads is broken. */
const MAX_LOAD_ROUNDS = 100;

export type RunSettings = {
  source: DocumentSource;
  params: Readonly<Record<string, unknown>>;
  now: DateTime;
  identity: string;
  project: { projectId: string; dataset: string } | null;
  trace: QueryTrace | undefined;
  budget: EvaluationBudget;
};

/** A result: a value, or (for streamed queries) the elements of the result array one by one. */
export type QueryOutput = { kind: 'value'; value: unknown } | { kind: 'items'; items: AsyncIterable<unknown> };

/** Runs `exec` in rounds until the source answers everything; `page` is the streamed scan's page. */
async function rounds(
  settings: RunSettings,
  exec: (scope: Scope) => unknown,
  slots: number,
  params: Readonly<Record<string, unknown>> = settings.params,
  page?: { scan: number; answer: ScanAnswer },
): Promise<unknown> {
  const { source, trace } = settings;
  for (let round = 0; round <= MAX_LOAD_ROUNDS; round++) {
    trace?.beginRound();
    const run: Run = {
      source,
      params,
      now: settings.now,
      identity: settings.identity,
      project: settings.project,
      cache: new Array<unknown>(slots),
      pending: false,
      budget: settings.budget,
      trace,
      page,
    };
    settings.budget.beginRun();
    const value = exec(new Scope(null, null, false, run));
    if (!run.pending) {
      trace?.keepRound();
      return value;
    }
    if (!source.load) throw new GroqSourceError('the document source answered PENDING but has no load()');
    await source.load();
  }
  throw new GroqSourceError(`the document source still answered PENDING after ${MAX_LOAD_ROUNDS} loads`);
}

/** Evaluates a planned (or unplanned) query tree. */
export async function runQuery(tree: Parameters<typeof compileQuery>[0], settings: RunSettings, stream: StreamPlan | null): Promise<QueryOutput> {
  const { root, info } = compileQuery(tree);
  const json = (value: unknown) => (info.nonJson ? toJson(value) : value);
  const pages = settings.source.pages?.bind(settings.source);
  if (!stream || !pages) return { kind: 'value', value: json(await rounds(settings, root, info.slots)) };

  const bind = scanRequests.get(stream.scan);
  if (!bind) throw new Error('BUG: a streamed scan was not compiled');
  // The scan's request is bound once, in the root scope (its values may need the source too).
  const request = await rounds(settings, (scope) => bind(scope), info.slots);
  if (!request || typeof request !== 'object') throw new Error('BUG: a streamed scan has no request');
  const scanRequest = request as ScanRequest;
  const askPages = pages;
  const trace = settings.trace;

  if (stream.kind === 'count') {
    let count = 0;
    for await (const answer of askPages(scanRequest)) {
      if (trace) trace.pages++;
      count += (await rounds(settings, root, info.slots, settings.params, { scan: stream.scan.id, answer })) as number;
    }
    return { kind: 'value', value: count };
  }
  if (stream.kind === 'aggregate') {
    const items = compileQuery(stream.items);
    // Whether a source took an unordered request at its word and handed documents out of order.
    let reordered = false;
    const collect = async (asked: ScanRequest): Promise<unknown[]> => {
      const all: unknown[] = [];
      for await (const answer of askPages(asked)) {
        if (trace) trace.pages++;
        if (answer.reordered) reordered = true;
        const page = await rounds(settings, items.root, items.info.slots, settings.params, { scan: stream.scan.id, answer });
        if (Array.isArray(page)) for (const item of page) all.push(item);
      }
      return all;
    };
    let all = await collect(stream.order === 'kept' ? scanRequest : { ...scanRequest, unordered: true });
    // A sum of terms taken in another order than the dataset's is asked again in order, unless exact.
    if (stream.order === 'sums' && reordered && !exactInAnyOrder(all)) all = await collect(scanRequest);
    const outer = compileQuery(stream.outer);
    const value = await rounds(settings, outer.root, outer.info.slots, { ...settings.params, [STREAM_PARAMETER]: all });
    return { kind: 'value', value: info.nonJson || outer.info.nonJson ? toJson(value) : value };
  }
  async function* items(): AsyncGenerator<unknown> {
    for await (const answer of askPages(scanRequest)) {
      if (trace) trace.pages++;
      const page = await rounds(settings, root, info.slots, settings.params, { scan: stream!.scan.id, answer });
      if (Array.isArray(page)) for (const item of page) yield json(item);
    }
  }
  return { kind: 'items', items: items() };
}
