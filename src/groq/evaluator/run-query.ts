// Running a compiled query against a source: in rounds while an asynchronous source answers
// PENDING (see ../source.ts), and, for queries made from one scan document by document
// (../planner/stream.ts), a page of documents at a time.
import { GroqSourceError } from '../errors.ts';
import type { ScanAnswer, ScanRequest } from '../planner/scan-plan.ts';
import type { QueryTrace } from '../planner/trace.ts';
import type { DocumentSource } from '../source.ts';
import type { CompiledQuery } from './compile.ts';
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
async function rounds<T>(settings: RunSettings, exec: (scope: Scope) => T, slots: number, page?: { scan: number; answer: ScanAnswer }): Promise<T> {
  const { source, trace } = settings;
  for (let round = 0; round <= MAX_LOAD_ROUNDS; round++) {
    trace?.beginRound();
    const run: Run = {
      source,
      params: settings.params,
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

/** Runs a compiled query: whole, or a page at a time when it has a stream and the source hands out pages. */
export async function runQuery(query: CompiledQuery, settings: RunSettings): Promise<QueryOutput> {
  const json = (value: unknown) => (query.nonJson ? toJson(value) : value);
  const { stream, slots } = query;
  const source = settings.source;
  if (!stream || !source.pages) return { kind: 'value', value: json(await rounds(settings, query.root, slots)) };

  // The scan's request is bound once, in the root scope (its values may need the source too).
  const request = await rounds(settings, (scope) => stream.request(scope, null), slots);
  const { trace } = settings;
  const { scan, page } = stream;
  const askPages = source.pages.bind(source);
  /** What the stream makes of one page (`page` run with the page as its scan's answer). */
  const onPage = (answer: ScanAnswer): Promise<unknown> => {
    if (trace) trace.pages++;
    return rounds(settings, page, slots, { scan, answer });
  };

  switch (stream.kind) {
    case 'items': {
      async function* items(): AsyncGenerator<unknown> {
        for await (const answer of askPages(request)) {
          const value = await onPage(answer);
          if (Array.isArray(value)) for (const item of value) yield json(item);
        }
      }
      return { kind: 'items', items: items() };
    }
    case 'count': {
      let count = 0;
      for await (const answer of askPages(request)) count += (await onPage(answer)) as number;
      return { kind: 'value', value: count };
    }
    case 'aggregate': {
      const aggregateOf = async (items: readonly unknown[]): Promise<QueryOutput> => ({
        kind: 'value',
        value: json(await rounds(settings, (scope) => stream.aggregate(scope, items), slots)),
      });
      if (stream.fromNumbers && stream.valuesAt && source.numbers) {
        const summary = await source.numbers({ ...request, unordered: true }, stream.valuesAt);
        const value = summary ? stream.fromNumbers(summary) : undefined;
        if (value !== undefined) return { kind: 'value', value };
      }
      if (stream.onFirstOccurrences && stream.valuesAt && source.firstValues) {
        const firsts = await source.firstValues(request, stream.valuesAt);
        if (firsts) return aggregateOf(firsts);
      }
      const collect = async (asked: ScanRequest): Promise<{ items: unknown[]; reordered: boolean }> => {
        const items: unknown[] = [];
        let reordered = false;
        for await (const answer of askPages(asked)) {
          if (answer.reordered) reordered = true;
          const value = await onPage(answer);
          if (Array.isArray(value)) for (const item of value) items.push(item);
        }
        return { items, reordered };
      };
      /** The items as the source's values at the path they read, when it can say them (in any order). */
      const collectValues = async (): Promise<{ items: unknown[]; reordered: boolean } | null> => {
        const pages = stream.valuesAt && source.values ? await source.values({ ...request, unordered: true }, stream.valuesAt) : null;
        if (!pages) return null;
        const items: unknown[] = [];
        for await (const values of pages) {
          if (trace) trace.pages++;
          for (const value of values) items.push(value);
        }
        return { items, reordered: true };
      };
      const inAnyOrder = stream.inAnyOrder;
      let collected = inAnyOrder ? ((await collectValues()) ?? (await collect({ ...request, unordered: true }))) : await collect(request);
      // Items the source handed out of dataset order are asked again in order, unless f's value on
      // them is the same in any order (a sum of floating-point numbers may not be).
      if (inAnyOrder && collected.reordered && !inAnyOrder(collected.items)) collected = await collect(request);
      return aggregateOf(collected.items);
    }
  }
}
