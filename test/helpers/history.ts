import { applyPatch } from 'mendoza';
import type { TestApp } from './test-app.ts';

/** A line of GET /data/history/:dataset/transactions/:ids. */
export interface TransactionLine {
  id: string;
  timestamp: string;
  author: string;
  documentIDs: string[];
  effects?: Record<string, { apply: unknown[]; revert: unknown[] }>;
  mutations?: Record<string, unknown>[];
}

export interface TransactionsResponse {
  status: number;
  contentType: string;
  lines: TransactionLine[];
  /** The parsed body when it was not NDJSON (an error). */
  body: unknown;
}

/** Studio's query for a document's timeline (TimelineController, Sanity Studio 4.22.1). */
export const STUDIO_HISTORY_QUERY =
  'tag=sanity.studio.structure.history&effectFormat=mendoza&excludeContent=true&excludeMutations=true&includeIdentifiedDocumentsOnly=true&reverse=true&limit=50';

/** Reads the transactions of `ids` as Studio does: `fetch` with a bearer token, NDJSON read line by line. */
export async function fetchTransactions(app: TestApp, token: string | undefined, path: string): Promise<TransactionsResponse> {
  const response = await fetch(`${app.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/x-ndjson')) return { status: response.status, contentType, lines: [], body: JSON.parse(text) };
  const lines = text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as TransactionLine);
  return { status: response.status, contentType, lines, body: undefined };
}

export type Versions = Record<string, Record<string, unknown> | null>;

/** A document without `_rev`, as mendoza effects describe it (null stays null). */
export function withoutRev(document: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!document) return null;
  const { _rev: _ignored, ...rest } = document;
  return rest;
}

/** The versions after each line, applying one side of its effects to the versions before. */
function replay(start: Versions, lines: readonly TransactionLine[], side: 'apply' | 'revert'): Versions[] {
  const states: Versions[] = [];
  let state = { ...start };
  for (const line of lines) {
    const next = { ...state };
    for (const [id, effect] of Object.entries(line.effects ?? {})) next[id] = applyPatch(state[id] ?? null, effect[side] as never) as Versions[string];
    state = next;
    states.push(state);
  }
  return states;
}

/**
 * Applies the lines' `revert` effects backwards (lines newest first) from the current versions,
 * as Studio's timeline does: the versions before each line, newest first.
 */
export function replayBackwards(current: Versions, lines: readonly TransactionLine[]): Versions[] {
  return replay(current, lines, 'revert');
}

/** Applies the lines' `apply` effects forwards (lines oldest first) from `start`: the versions after each line. */
export function replayForwards(start: Versions, lines: readonly TransactionLine[]): Versions[] {
  return replay(start, lines, 'apply');
}
