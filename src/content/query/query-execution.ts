import { execute, type EvaluationBudget, type PreparedQuery, type QueryOutput, type QueryTrace } from '../../groq/index.ts';
import { StoreDocumentSource, type Store } from '../../store/index.ts';
import { withPerspective } from './perspective-source.ts';
import type { Perspective } from './perspectives.ts';
import { mainThreadText, MoveToWorker } from './query-budget.ts';

/** Read once: the heap's limit is set at start (getHeapStatistics() on every query was work on the lookup's path). */
const MAIN_THREAD_TEXT = mainThreadText();

/** What a query runs on and with: the same on the main thread and in a query worker. */
export interface QueryJob {
  projectId: string;
  dataset: string;
  params: Readonly<Record<string, unknown>>;
  perspective: Perspective;
}

export interface QueryRun {
  source: StoreDocumentSource;
  output: Promise<QueryOutput>;
}

/** Executes a prepared query over a dataset of the store, within `budget`. */
export function runQueryOn(
  store: Store,
  prepared: PreparedQuery,
  job: QueryJob,
  options: {
    budget: EvaluationBudget;
    maxDocuments?: number;
    trace?: QueryTrace | undefined;
    /** The caller writes the result with answerJson() and reads nothing of it (SourceOptions.verbatim). */
    verbatim?: boolean;
  },
): QueryRun {
  const max = options.maxDocuments;
  const exceeded = (held: string): never => {
    throw new MoveToWorker(`it reads ${held} at once (a main-thread query holds at most ${max} documents, and ${MAIN_THREAD_TEXT} characters of them)`);
  };
  const source = new StoreDocumentSource(store, job.projectId, job.dataset, {
    ...(max === undefined ? {} : { limit: { documents: max, textCharacters: MAIN_THREAD_TEXT, exceeded } }),
    verbatim: options.verbatim ?? false,
  });
  const output = execute(prepared, {
    source: withPerspective(source, job.perspective),
    params: job.params,
    project: { projectId: job.projectId, dataset: job.dataset },
    trace: options.trace,
    budget: options.budget,
  });
  return { source, output };
}

/** The whole result of an output, also of a streamed one, as one value. */
export async function wholeValue(output: QueryOutput): Promise<unknown> {
  if (output.kind === 'value') return output.value;
  const items: unknown[] = [];
  for await (const item of output.items) items.push(item);
  return items;
}
