import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/webhooks/address-policy.ts';
import { signWebhook, verifyWebhookSignature } from '../../src/webhooks/signature.ts';
import { assertAcceptableWebhookUrl } from '../../src/webhooks/url-policy.ts';
import { outcomeOf, type AttemptResult } from '../../src/webhooks/delivery-attempt.ts';
import type { DeliveryRecord } from '../../src/store/index.ts';
import { AppError } from '../../src/errors.ts';

describe('address policy', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2001:4860:4860::8888', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['169.254.169.254', false],
    ['100.64.1.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.251', false],
    ['192.0.2.10', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['::ffff:192.168.1.1', false],
    ['::ffff:8.8.8.8', true],
    ['not an ip', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('URL policy', () => {
  const refuses = async (url: string, resolve = async () => ['8.8.8.8']) => {
    try {
      await assertAcceptableWebhookUrl(url, false, resolve);
    } catch (error) {
      return error instanceof AppError ? error.statusCode : 'other';
    }
    return 'accepted';
  };

  it('refuses a host name that resolves to loopback, or to any private address among public ones', async () => {
    expect(await refuses('http://rebind.example/hook', async () => ['127.0.0.1'])).toBe(400);
    expect(await refuses('http://mixed.example/hook', async () => ['8.8.8.8', '10.0.0.1'])).toBe(400);
    expect(await refuses('http://empty.example/hook', async () => [])).toBe(400);
    expect(await refuses('http://public.example/hook')).toBe('accepted');
  });

  it('lets development allow private addresses but keeps the other rules', async () => {
    await expect(assertAcceptableWebhookUrl('http://127.0.0.1/x', true)).resolves.toBeUndefined();
    await expect(assertAcceptableWebhookUrl('http://u:p@127.0.0.1/x', true)).rejects.toThrow(/credentials/);
    await expect(assertAcceptableWebhookUrl('file:///etc/passwd', true)).rejects.toThrow(/http/);
  });
});

describe('signatures', () => {
  const secret = 'the-secret';
  const body = '{"event":"document.create"}';
  const now = 1_800_000_000;

  it('signs v1:timestamp:body with HMAC-SHA256 in lower-case hex', () => {
    expect(signWebhook(secret, now, body)).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signWebhook(secret, now, body)).toBe(signWebhook(secret, now, Buffer.from(body)));
    expect(signWebhook(secret, now, body)).not.toBe(signWebhook(secret, now + 1, body));
  });

  it('verifies within 300 s and refuses older or future timestamps, other bodies and other secrets', () => {
    const signature = signWebhook(secret, now, body);
    const verify = (overrides: Partial<Parameters<typeof verifyWebhookSignature>[0]>) =>
      verifyWebhookSignature({ secret, rawBody: body, timestamp: String(now), signature, now: now + 10, ...overrides });
    expect(verify({})).toBe(true);
    expect(verify({ now: now + 300 })).toBe(true);
    expect(verify({ now: now + 301 })).toBe(false);
    expect(verify({ now: now - 301 })).toBe(false);
    expect(verify({ rawBody: `${body} ` })).toBe(false);
    expect(verify({ secret: 'other' })).toBe(false);
    expect(verify({ timestamp: undefined })).toBe(false);
    expect(verify({ timestamp: 'soon' })).toBe(false);
    expect(verify({ signature: 'v1=00' })).toBe(false);
    expect(verify({ signature: `v2=abc, ${signature}` })).toBe(true);
  });
});

describe('delivery outcomes', () => {
  const delivery = (attempts: number) => ({ attempts }) as DeliveryRecord;
  const result = (statusCode: number | null, retryable: boolean): AttemptResult => ({ statusCode, responseBody: null, error: statusCode ? null : 'ECONNREFUSED', retryable });
  const now = 1_000_000;

  it('succeeds on 2xx', () => {
    expect(outcomeOf(delivery(0), result(204, false), now)).toMatchObject({ status: 'succeeded', attempts: 1, error: null });
  });

  it('retries after 1 s, then 5 s, then gives up', () => {
    expect(outcomeOf(delivery(0), result(503, true), now)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: new Date(now + 1000).toISOString() });
    expect(outcomeOf(delivery(1), result(null, true), now)).toMatchObject({ status: 'pending', attempts: 2, nextAttemptAt: new Date(now + 5000).toISOString() });
    expect(outcomeOf(delivery(2), result(500, true), now)).toMatchObject({ status: 'failed', attempts: 3 });
  });

  it('fails at once when the attempt is not retryable', () => {
    expect(outcomeOf(delivery(0), result(404, false), now)).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
