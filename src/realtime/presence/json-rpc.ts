import { FORBIDDEN_KEYS_MESSAGE, parseRequestJson } from '../../json/request-json.ts';

/**
 * JSON-RPC 2.0 over WebSocket text frames, as @sanity/bifur-client speaks it: requests
 * `{jsonrpc: "2.0", method, params, id}`, replies `{jsonrpc, id, result}` or `{jsonrpc, id,
 * error: {code, message}}`, and notifications `{jsonrpc, method, params}` for subscriptions.
 */

/**
 * Error codes. The negative ones are JSON-RPC's (and bifur-client's ERROR_CODES); 4000 + an HTTP
 * status is a refusal of the connection, sent as the error and then as the close code (bifur's
 * 4000 bad request, 4001 unauthorized, 4004 not found, and 4003 forbidden beside them).
 */
export const RPC_ERRORS = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  /** Also bifur's SUBSCRIPTION_NOT_FOUND. */
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Server-defined (-32000 to -32099): more messages than the connection may send. */
  RATE_LIMITED: -32029,
  /** Server-defined: this instance holds as many presence states as it may. */
  CAPACITY: -32050,
} as const;

export type RequestId = string | number | null;

export interface RpcRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** Absent for a notification, which gets no reply. */
  readonly id?: RequestId;
}

/** A request that cannot be answered as asked: becomes an error reply (to `id`, when the frame's could be read). */
export class RpcError extends Error {
  readonly code: number;
  readonly id: RequestId;
  constructor(code: number, message: string, id: RequestId = null) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.id = id;
  }
}

/** Parses one text frame; throws an RpcError (with the id when one could be read) for anything else. */
export function parseRequest(text: string): RpcRequest {
  let message: unknown;
  try {
    message = parseRequestJson(text);
  } catch (error) {
    const detail = error instanceof SyntaxError && error.message === FORBIDDEN_KEYS_MESSAGE ? FORBIDDEN_KEYS_MESSAGE : 'not valid JSON';
    throw new RpcError(RPC_ERRORS.PARSE_ERROR, `Parse error: ${detail}`);
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new RpcError(RPC_ERRORS.INVALID_REQUEST, 'Invalid request: expected one JSON-RPC 2.0 request object (batches are not supported)');
  }
  const { jsonrpc, method, params = {}, id } = message as Record<string, unknown>;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    throw new RpcError(RPC_ERRORS.INVALID_REQUEST, 'Invalid request: "id" must be a string or a number');
  }
  if (jsonrpc !== '2.0' || typeof method !== 'string') {
    throw new RpcError(RPC_ERRORS.INVALID_REQUEST, 'Invalid request: expected {"jsonrpc": "2.0", "method": "...", "params": {...}, "id": "..."}', id ?? null);
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new RpcError(RPC_ERRORS.INVALID_PARAMS, 'Invalid params: "params" must be an object', id ?? null);
  }
  return { method, params: params as Record<string, unknown>, ...(id === undefined ? {} : { id }) };
}

export function resultFrame(id: RequestId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

export function errorFrame(id: RequestId, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

/** A subscription's message; `resultJson` is serialized once for every subscriber. */
export function subscriptionFrame(method: string, subscription: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":{"subscription":${JSON.stringify(subscription)},"result":${resultJson}}}`;
}
