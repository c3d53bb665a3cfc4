import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { expectErrorBody, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient } from '../helpers/content.ts';
import { eventually, startReceiver, type Receiver } from '../helpers/receiver.ts';
import { testEngine } from '../helpers/engine.ts';

/** With WEBHOOK_ALLOW_PRIVATE_URLS off (the default), as in production. */
describe(`webhook URL rules and SSRF protection (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let target: Receiver;

  beforeAll(async () => {
    app = await startTestApp({}, { workers: true });
    admin = await app.login();
    project = await createProject(app, admin);
    target = await startReceiver();
  });
  afterAll(async () => {
    await target.close();
    await app.close();
  });

  const create = (url: string) =>
    app.request('POST', `/api/v1/webhooks/${project.slug}`, {
      token: admin,
      body: { name: 'ssrf', url, events: ['document.create'], dataset: 'production' },
    });

  it.each([
    'http://localhost:8080/hook',
    'http://127.0.0.1/hook',
    'http://127.1.2.3/hook',
    'http://10.0.0.5/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://[::1]/hook',
    'http://[fe80::1]/hook',
    'http://[fc00::1]/hook',
    'http://[ff02::1]/hook',
    'http://[::]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://2130706433/hook',
    'http://0x7f000001/hook',
    'https://does-not-resolve.invalid/hook',
  ])('refuses %s', async (url) => {
    expectErrorBody(await create(url), 400);
  });

  it('accepts a public address', async () => {
    expect((await create('https://93.184.216.34/hook')).status).toBe(201);
    expect((await create('http://[2606:2800:220:1:248:1893:25c8:1946]:8443/hook')).status).toBe(201);
  });

  it('checks the address actually connected to at delivery: a URL that now points inward is refused', async () => {
    // As if DNS answered with a public address when the webhook was saved, then rebinds to loopback.
    const now = new Date().toISOString();
    const id = randomUUID();
    await app.services.store.webhooks.insert({
      id,
      projectId: project.id,
      name: 'rebound',
      url: target.url,
      events: ['document.create'],
      dataset: 'production',
      active: true,
      secret: 'rebinding-secret-0123456789',
      createdAt: now,
      updatedAt: now,
    });
    await dataClient(app, admin, project.slug).mutate([{ create: { _type: 'probe' } }]);
    const [delivery] = await eventually(async () => {
      const list = await app.services.store.deliveries.recent(id, 5);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery).toMatchObject({ attempts: 1, statusCode: null });
    expect(delivery!.error).toContain('non-public address');
    expect(target.requests).toHaveLength(0);
  });
});
