import autocannon from 'autocannon';
import { join } from 'node:path';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  errors: number;
}

export const LOAD_CONNECTIONS = 16;

/** Where `[<uuid>]` in a body becomes a new random UUID in each request (LoadRequest.freshUuids). */
const FRESH_UUIDS = join(import.meta.dirname, 'fresh-uuids.cjs');

export interface LoadRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Each `[<uuid>]` in the body is a new random UUID in each request. */
  freshUuids?: boolean;
}

/**
 * Requests per second and latency of one request repeated by 16 connections for `seconds`, sent
 * from a worker thread: the benchmarks start the servers they measure in their own process, and
 * a client on the same thread took its time from the server's (a server's clients are elsewhere).
 */
export async function loadTest(request: LoadRequest, seconds: number): Promise<LoadResult> {
  const { body } = request;
  const result = await autocannon({
    url: request.url,
    method: request.method ?? 'GET',
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...request.headers },
    ...(body === undefined ? {} : { body }),
    ...(request.freshUuids ? { requests: [{ setupRequest: FRESH_UUIDS }] } : {}),
    connections: LOAD_CONNECTIONS,
    duration: seconds,
    workers: 1,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    errors: result.non2xx + result.errors,
  };
}
