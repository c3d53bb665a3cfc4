import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { DeliveryRecord, DeliveryStatus, WebhookRecord } from '../store/index.ts';
import type { AttemptOutcome } from '../store/repos/webhook-deliveries.ts';
import { signWebhook } from './signature.ts';
import { BlockedAddressError } from './safe-dispatcher.ts';

export const USER_AGENT = 'Service-Webhook/1.0';
export const MAX_ATTEMPTS = 3;
/** Waits before attempt 2 and attempt 3. */
export const RETRY_DELAYS_MS = [1_000, 5_000] as const;
export const PERMANENT_STATUSES = new Set([400, 401, 403, 404, 410, 422]);
const RETRYABLE_STATUSES = new Set([408, 429]);
const RESPONSE_BODY_LIMIT = 4096;

export interface AttemptResult {
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  /** Whether a later attempt could succeed. */
  retryable: boolean;
}

/** Sends one attempt: the signed POST, no redirects, bounded by `timeoutMs`. */
export async function sendAttempt(
  webhook: WebhookRecord,
  delivery: DeliveryRecord,
  dispatcher: Dispatcher,
  timeoutMs: number,
  nowSeconds: number,
): Promise<AttemptResult> {
  const body = JSON.stringify(delivery.payload);
  try {
    const response = await request(webhook.url, {
      method: 'POST',
      dispatcher,
      body,
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-service-event': delivery.event,
        'x-service-delivery': delivery.id,
        'x-service-timestamp': String(nowSeconds),
        'x-service-signature': signWebhook(webhook.secret, nowSeconds, body),
      },
    });
    const responseBody = await readLimited(response.body);
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { statusCode: status, responseBody, error: null, retryable: false };
    const retryable = status >= 500 || RETRYABLE_STATUSES.has(status);
    const error = status >= 300 && status < 400 ? `redirect (${status}) refused` : `HTTP ${status}`;
    return { statusCode: status, responseBody, error, retryable };
  } catch (error) {
    const blocked = error instanceof BlockedAddressError || (error instanceof Error && error.cause instanceof BlockedAddressError);
    const message = error instanceof Error ? (error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : error.message) : String(error);
    return { statusCode: null, responseBody: null, error: message, retryable: !blocked };
  }
}

/** What the delivery becomes after an attempt. */
export function outcomeOf(delivery: DeliveryRecord, result: AttemptResult, now: number): AttemptOutcome {
  const attempts = delivery.attempts + 1;
  let status: DeliveryStatus = 'failed';
  let next = now;
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) status = 'succeeded';
  else if (result.retryable && attempts < MAX_ATTEMPTS) {
    status = 'pending';
    next = now + RETRY_DELAYS_MS[attempts - 1]!;
  }
  return {
    status,
    attempts,
    nextAttemptAt: new Date(next).toISOString(),
    statusCode: result.statusCode,
    responseBody: result.responseBody,
    error: status === 'succeeded' ? null : result.error,
  };
}

async function readLimited(body: AsyncIterable<Buffer | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < RESPONSE_BODY_LIMIT) chunks.push(Buffer.from(chunk));
    size += chunk.length;
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
}
