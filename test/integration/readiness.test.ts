import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.ts';
import { testEngine } from '../helpers/engine.ts';

interface ReadyBody {
  status: string;
  timestamp: string;
  checks: Record<string, string>;
}

describe(`GET /ready (${testEngine})`, () => {
  it('answers 200 ready without a credential, with the rate-limit headers, and is in the API document', async () => {
    const app = await startTestApp();
    try {
      const ready = await app.request<ReadyBody>('GET', '/api/v1/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
      expect(Date.parse(ready.body.timestamp)).not.toBeNaN();
      expect(ready.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(ready.headers.get('connection')).not.toBe('close');
      const openapi = await app.request<{ paths: Record<string, unknown> }>('GET', '/api/v1/openapi.json');
      expect(openapi.body.paths).toHaveProperty('/api/v1/ready');
    } finally {
      await app.close();
    }
  });

  it('answers 503 draining once the instance is shutting down, while other routes still answer, closing their connections', async () => {
    const app = await startTestApp();
    try {
      app.services.readiness.drain();
      const ready = await app.request<ReadyBody>('GET', '/api/v1/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'draining', checks: { database: 'ok' } });
      const health = await app.request('GET', '/api/v1/health');
      expect(health.status).toBe(200);
      expect(health.headers.get('connection')).toBe('close');
    } finally {
      await app.close();
    }
  });

  it('answers 503 unavailable while the database does not answer (and /health 503 degraded)', async () => {
    const app = await startTestApp();
    await app.services.store.close();
    try {
      const ready = await app.request<ReadyBody>('GET', '/api/v1/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'unavailable', checks: { database: 'failed' } });
      expect(await app.request('GET', '/api/v1/health')).toMatchObject({ status: 503, body: { status: 'degraded' } });
    } finally {
      await app.close().catch(() => undefined); // its store is closed already
      await app.db.drop();
    }
  });
});
