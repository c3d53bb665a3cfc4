import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient } from '../helpers/content.ts';
import { eventually } from '../helpers/eventually.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { testEngine } from '../helpers/engine.ts';
import { embeddedIPv6Literal, EMBEDDING_FORMS, nonPublicIPv4 } from '../helpers/embedded-ipv4.ts';

/** With WEBHOOK_ALLOW_PRIVATE_URLS off (the default), as in production. */
describe(`webhook URL rules and SSRF protection (${testEngine})`, () => {
  const app = useTestApp({}, { workers: true });
  let project: TestProject;
  let target: Receiver;

  beforeAll(async () => {
    project = await createProject(app, app.admin);
    target = await startReceiver();
  });
  afterAll(async () => {
    await target.close();
  });

  const create = (url: string, active = true) =>
    app.request('POST', `/api/v1/webhooks/${project.slug}`, {
      token: app.admin,
      body: { name: 'ssrf', url, events: ['document.create'], dataset: 'production', active },
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

  it.each([
    ['IPv4-compatible loopback', 'http://[::127.0.0.1]:3999/'],
    ['IPv4-compatible loopback, hex', 'http://[::7f00:1]/hook'],
    ['IPv4-compatible private', 'http://[::10.0.0.1]/hook'],
    ['IPv4-mapped link-local', 'http://[::ffff:169.254.169.254]/latest/meta-data'],
    ['IPv4-mapped, hex', 'http://[::ffff:7f00:1]/hook'],
    ['IPv4-translated (RFC 6145)', 'http://[::ffff:0:8.8.8.8]/hook'],
    ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]/hook'],
    ['NAT64 of a private address', 'http://[64:ff9b::c0a8:101]/hook'],
    ['NAT64 local-use prefix', 'http://[64:ff9b:1::a00:1]/hook'],
    ['NAT64 local-use prefix, public IPv4', 'http://[64:ff9b:1::808:808]/hook'],
    ['6to4 of loopback', 'http://[2002:7f00:1::1]/hook'],
    ['6to4 of a private address', 'http://[2002:c0a8:101::]/hook'],
    ['Teredo with a loopback client (stored inverted)', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook'],
    ['Teredo with a private server', 'http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/hook'],
    ['site-local', 'http://[fec0::1]/hook'],
    ['discard-only', 'http://[100::1]/hook'],
    ['documentation', 'http://[2001:db8::1]/hook'],
    ['benchmarking', 'http://[2001:2::1]/hook'],
    ['outside global unicast', 'http://[4000::1]/hook'],
  ])('refuses an IPv6 address that is not public: %s (%s)', async (_form, url) => {
    expectErrorBody(await create(url), 400);
  });

  it('refuses every IPv6 form that carries a private, loopback or link-local IPv4 address', async () => {
    await fc.assert(
      fc.asyncProperty(nonPublicIPv4, fc.constantFrom(...EMBEDDING_FORMS), fc.nat(), async (ipv4, form, seed) => {
        const literal = embeddedIPv6Literal(ipv4, form, seed);
        const body = expectErrorBody(await create(`http://[${literal}]:${1 + (seed % 65535)}/hook`), 400);
        expect(body.message).toContain('private or reserved address');
      }),
      { numRuns: 150 },
    );
  });

  it('accepts a public address', async () => {
    expect((await create('https://93.184.216.34/hook')).status).toBe(201);
    expect((await create('http://[2606:2800:220:1:248:1893:25c8:1946]:8443/hook')).status).toBe(201);
  });

  it('accepts IPv6 forms that carry only public IPv4 addresses', async () => {
    for (const url of [
      'http://[::ffff:93.184.216.34]/hook',
      'http://[64:ff9b::93.184.216.34]/hook',
      'http://[2002:5db8:d822::1]/hook',
      'http://[2001:0:4136:e378:8000:63bf:a247:27dd]/hook',
    ]) {
      expect((await create(url, false)).status, url).toBe(201);
    }
  });

  /** A webhook written to the store directly, as if its URL had passed the rules when it was saved. */
  async function storedWebhook(name: string, url: string): Promise<string> {
    const now = new Date().toISOString();
    const id = randomUUID();
    await app.services.store.webhooks.insert({
      id,
      projectId: project.id,
      name,
      url,
      events: ['document.create'],
      dataset: 'production',
      active: true,
      secret: 'rebinding-secret-0123456789',
      createdAt: now,
      updatedAt: now,
    });
    return id;
  }

  const failedDelivery = (id: string) =>
    eventually(async () => {
      const list = await app.services.store.deliveries.recent(id, 5);
      return list[0]?.status === 'failed' ? list[0] : undefined;
    });

  it('refuses at delivery a literal IPv6 address that carries loopback, before connecting', async () => {
    const port = new URL(target.url).port;
    const ids = [
      await storedWebhook('compatible', `http://[::127.0.0.1]:${port}/hook`),
      await storedWebhook('mapped', `http://[::ffff:127.0.0.1]:${port}/hook`),
      await storedWebhook('nat64', `http://[64:ff9b::127.0.0.1]:${port}/hook`),
    ];
    await dataClient(app, app.admin, project.slug).mutate([{ create: { _type: 'probe' } }]);
    for (const id of ids) {
      const delivery = await failedDelivery(id);
      expect(delivery).toMatchObject({ attempts: 1, statusCode: null });
      expect(delivery.error).toContain('non-public address');
    }
    expect(target.requests).toHaveLength(0);
    for (const id of ids) await app.services.store.webhooks.delete(project.id, id);
  });

  it('checks the address actually connected to at delivery: a URL that now points inward is refused', async () => {
    // As if DNS answered with a public address when the webhook was saved, then rebinds to loopback.
    const id = await storedWebhook('rebound', target.url);
    await dataClient(app, app.admin, project.slug).mutate([{ create: { _type: 'probe' } }]);
    const delivery = await failedDelivery(id);
    expect(delivery).toMatchObject({ attempts: 1, statusCode: null });
    expect(delivery.error).toContain('non-public address');
    expect(target.requests).toHaveLength(0);
  });
});
