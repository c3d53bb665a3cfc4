import { describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { testEngine } from '../helpers/engine.ts';

describe(`HTTP conventions (${testEngine})`, () => {
  const app = useTestApp();

  it('serves GET /health without authentication', async () => {
    const response = await app.request<{ status: string; timestamp: string; connections: number }>('GET', '/api/v1/health');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('ok');
    expect(response.body.connections).toBe(0);
    expect(Math.abs(Date.parse(response.body.timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('answers unknown routes with the standard 404 body, authenticated or not', async () => {
    expect(expectErrorBody(await app.request('GET', '/api/v1/nothing-here'), 404).message).toContain('/api/v1/nothing-here');
    expectErrorBody(await app.request('DELETE', '/api/v1/projects', { token: app.admin }), 404);
    expectErrorBody(await app.request('GET', '/'), 404);
    // With a JSON body, which no route reads (it was parsed without a route's hooks, and failed with 500).
    for (const path of ['/api/v1/nothing-here', '/v2021-06-07/users', '/v1/users/x']) {
      expectErrorBody(await app.request('POST', path, { token: app.admin, body: { email: '' } }), 404);
      expectErrorBody(await app.request('PUT', path, { token: app.admin, rawBody: '{', headers: { 'content-type': 'application/json' } }), 404);
    }
  });

  it('answers malformed JSON on protected routes with 400 once authenticated, 401 before', async () => {
    const raw = { rawBody: '{"name": ', headers: { 'content-type': 'application/json' } };
    expectErrorBody(await app.request('POST', '/api/v1/projects', { ...raw, token: app.admin }), 400);
    expectErrorBody(await app.request('POST', '/api/v1/projects', raw), 401);
  });

  it('answers an oversized body with 413 and the standard body', async () => {
    const response = await app.request('POST', '/api/v1/projects', { token: app.admin, body: { name: 'x'.repeat(2 * 1024 * 1024), slug: 'big' } });
    expectErrorBody(response, 413);
  });

  it('never leaks a stack trace', async () => {
    const response = await app.request('POST', '/api/v1/projects', { token: app.admin, rawBody: '[', headers: { 'content-type': 'application/json' } });
    expect(JSON.stringify(response.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('serves the OpenAPI document generated from the route schemas, and the docs UI', async () => {
    const spec = await app.request<{ openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    for (const path of ['/api/v1/auth/login', '/api/v1/users/{id}', '/api/v1/projects/{slug}', '/api/v1/tokens/{project}/{id}', '/api/v1/health']) {
      expect(Object.keys(spec.body.paths)).toContain(path);
    }
    expect(Object.keys(spec.body.paths['/api/v1/users']!.post!.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409', '429']));
    const ui = await app.request<string>('GET', '/api/v1/docs/');
    expect(ui.status).toBe(200);
    expect(ui.body).toContain('swagger');
  });
});
