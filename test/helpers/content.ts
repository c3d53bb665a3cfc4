import type { ApiResponse, TestApp } from './test-app.ts';
import { LOG_START, type LogPosition } from '../../src/store/commit-order.ts';

/** Small helpers for the /data routes of one project and dataset. */
export function dataClient(app: TestApp, token: string, project: string, dataset = 'production') {
  const headers = { 'x-project': project };
  return {
    mutate: <T = MutateBody>(mutations: unknown, query = '') =>
      app.request<T>('POST', `/api/v1/data/mutate/${dataset}${query}`, { token, headers, body: { mutations } }),
    doc: <T = Record<string, unknown>>(id: string, query = '') =>
      app.request<T>('GET', `/api/v1/data/doc/${dataset}/${id}${query}`, { token, headers }),
    query: <T = unknown>(query: string) =>
      app.request<{ result: T }>('POST', `/api/v1/data/query/${dataset}`, { token, headers, body: { query } }),
    counts: () => app.request<{ counts: Record<string, number> }>('GET', `/api/v1/data/counts/${dataset}`, { token, headers }),
    publish: (id: string) => app.request<Record<string, unknown>>('POST', `/api/v1/data/publish/${dataset}/${id}`, { token, headers }),
    unpublish: (id: string) => app.request<Record<string, unknown>>('POST', `/api/v1/data/unpublish/${dataset}/${id}`, { token, headers }),
    schedule: (id: string, scheduledAt: unknown) =>
      app.request<{ documentId: string; scheduledAt: string | null }>('POST', `/api/v1/data/schedule/${dataset}/${id}`, {
        token,
        headers,
        body: { scheduledAt },
      }),
    getSchedule: (id: string) =>
      app.request<{ documentId: string; scheduledAt: string | null }>('GET', `/api/v1/data/schedule/${dataset}/${id}`, { token, headers }),
    history: (id: string, query = '') => app.request<HistoryBody>('GET', `/api/v1/data/history/${dataset}/${id}${query}`, { token, headers }),
    revision: (id: string, revision: number | string) =>
      app.request<RevisionBody>('GET', `/api/v1/data/history/${dataset}/${id}/${revision}`, { token, headers }),
    restore: (id: string, revision: number | string) =>
      app.request<Record<string, unknown>>('POST', `/api/v1/data/history/${dataset}/${id}/${revision}/restore`, { token, headers }),
  };
}

export interface MutateBody {
  transactionId: string;
  results: { id: string; operation: string; document?: Record<string, unknown> | null }[];
  documentIds?: string[];
}

export interface HistoryBody {
  documentId: string;
  revisions: { id: string; revision: number; changed_by: string | null; created_at: string }[];
}

export interface RevisionBody {
  id: string;
  documentId: string;
  revision: number;
  changed_by: string | null;
  created_at: string;
  document: Record<string, unknown>;
}

export interface OutboxRow {
  position: LogPosition;
  projectId: string;
  event: string;
  documentId: string;
  documentType: string | null;
  transactionId: string;
  payload: Record<string, unknown>;
}

/** Every event in the outbox so far (oldest first). */
export async function outboxEvents(app: TestApp): Promise<OutboxRow[]> {
  return app.services.store.outbox.after(LOG_START, 100_000);
}

export function ok<T>(response: ApiResponse<T>, status = 200): T {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}
