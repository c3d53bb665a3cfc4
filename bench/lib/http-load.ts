import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  errors: number;
}

export const LOAD_CONNECTIONS = 16;

/**
 * Requests per second and latency of one request repeated by 16 connections for `seconds`. A body
 * given as a function is made anew for each request.
 */
export async function loadTest(
  request: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | (() => string) },
  seconds: number,
): Promise<LoadResult> {
  const { body } = request;
  const result = await autocannon({
    url: request.url,
    method: request.method ?? 'GET',
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...request.headers },
    ...(typeof body === 'string' ? { body } : {}),
    ...(typeof body === 'function' ? { requests: [{ setupRequest: (each: object) => ({ ...each, body: body() }) }] } : {}),
    connections: LOAD_CONNECTIONS,
    duration: seconds,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    errors: result.non2xx + result.errors,
  };
}
