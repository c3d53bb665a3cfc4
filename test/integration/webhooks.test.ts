import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { eventually } from '../helpers/eventually.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { testEngine } from '../helpers/engine.ts';
import { verifyWebhookSignature } from '../../src/webhooks/signature.ts';
import { WEBHOOK_EVENTS } from '../../src/webhooks/events.ts';

interface WebhookBody {
  id: string;
  name: string;
  url: string;
  events: string[];
  dataset: string;
  active: boolean;
  secret?: string;
}

interface DeliveryBody {
  id: string;
  event: string;
  payload: Record<string, unknown>;
  status_code: number | null;
  response_body: string | null;
  attempts: number;
  success: boolean;
  status: string;
  error: string | null;
}

describe(`webhooks (${testEngine})`, () => {
  const app = useTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { workers: true });
  let project: TestProject;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
    const started = await startReceiver(respond);
    receivers.push(started);
    return started;
  }

  const createHook = (body: Record<string, unknown>, slug = project.slug, token = app.admin) =>
    app.request<WebhookBody>('POST', `/api/v1/webhooks/${slug}`, { token, body: { name: 'hook', dataset: 'production', events: ['document.create'], ...body } });
  const deliveries = (id: string, query = '') =>
    app.request<DeliveryBody[]>('GET', `/api/v1/webhooks/${project.slug}/${id}/deliveries${query}`, { token: app.admin });
  const data = () => dataClient(app, app.admin, project.slug);

  describe('management', () => {
    it('creates a webhook with a generated secret shown once, and lists it without the secret', async () => {
      const created = await createHook({ url: 'http://127.0.0.1:9/hook', events: ['document.create', 'asset.upload'] });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'hook', dataset: 'production', active: true, events: ['document.create', 'asset.upload'] });
      expect(created.body.secret).toMatch(/^[0-9a-f]{64}$/);
      const list = await app.request<WebhookBody[]>('GET', `/api/v1/webhooks/${project.slug}`, { token: app.admin });
      const listed = list.body.find((hook) => hook.id === created.body.id);
      expect(listed).toBeDefined();
      expect(listed).not.toHaveProperty('secret');
      expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    });

    it('keeps a supplied secret and the active flag', async () => {
      const created = await createHook({ url: 'http://127.0.0.1:9/x', secret: 'my-own-secret-123456', active: false });
      expect(created.body).toMatchObject({ secret: 'my-own-secret-123456', active: false });
    });

    it('lists the event names', async () => {
      expect((await app.request('GET', '/api/v1/webhooks/events', { token: app.admin })).body).toEqual([...WEBHOOK_EVENTS]);
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(81) }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ events: ['document.created'] }, 'events'],
      [{ events: [] }, 'events'],
      [{ events: 'document.create' }, 'events'],
      [{ dataset: undefined }, 'dataset'],
      [{ dataset: 'nope' }, 'dataset'],
      [{ url: undefined }, 'url'],
      [{ url: 'ftp://127.0.0.1/x' }, 'http'],
      [{ url: 'http://user:pass@127.0.0.1/x' }, 'credentials'],
      [{ url: `http://127.0.0.1/${'a'.repeat(2048)}` }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'http://127.0.0.1/x', colour: 'red' }, 'colour'],
      [{ url: 'http://127.0.0.1/x', secret: 'short' }, 'secret'],
    ])('answers 400 for %j', async (body, text) => {
      const response = await createHook({ url: 'http://127.0.0.1:9/x', ...body });
      expect(expectErrorBody(response, 400).message).toContain(text);
    });

    it('answers 409 for an unknown project and beyond 20 webhooks', async () => {
      expectErrorBody(await createHook({ url: 'http://127.0.0.1:9/x' }, 'no-such-project'), 409);
      const full = await createProject(app, app.admin);
      for (let i = 0; i < 20; i++) expect((await createHook({ url: 'http://127.0.0.1:9/x', name: `h${i}` }, full.slug)).status).toBe(201);
      expect(expectErrorBody(await createHook({ url: 'http://127.0.0.1:9/x' }, full.slug), 409).message).toContain('20');
    });

    it('needs a project app.admin with a session: editors and API tokens are refused', async () => {
      const editor = await createUser(app, app.admin, 'editor');
      expectErrorBody(await createHook({ url: 'http://127.0.0.1:9/x' }, project.slug, editor.token), 403);
      const { token } = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
      expectErrorBody(await createHook({ url: 'http://127.0.0.1:9/x' }, project.slug, token), 403);
      expectErrorBody(await app.request('GET', `/api/v1/webhooks/${project.slug}`, { token }), 403);
      expectErrorBody(await app.request('GET', '/api/v1/webhooks/events', { token }), 403);
      const projectAdmin = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: project.id, role: 'admin' }] });
      expect((await createHook({ url: 'http://127.0.0.1:9/x' }, project.slug, projectAdmin.token)).status).toBe(201);
    });

    it('answers a project the caller cannot see exactly as an unknown one: 404, and 409 on create', async () => {
      const hidden = await createProject(app, app.admin);
      const { body: hook } = await createHook({ url: 'http://127.0.0.1:9/x' }, hidden.slug);
      const own = await createProject(app, app.admin);
      const outsiders = [
        await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: own.id, role: 'admin' }] }),
        await createUser(app, app.admin, 'editor', { project_access: [] }),
      ];
      const body = { name: 'probe', url: 'http://127.0.0.1:9/x', events: ['document.create'], dataset: 'production' };
      const routes: [string, (project: string) => string, number, unknown?][] = [
        ['GET', (ref) => `/api/v1/webhooks/${ref}`, 404],
        ['POST', (ref) => `/api/v1/webhooks/${ref}`, 409, body],
        ['PUT', (ref) => `/api/v1/webhooks/${ref}/${hook.id}`, 404, { name: 'renamed' }],
        ['DELETE', (ref) => `/api/v1/webhooks/${ref}/${hook.id}`, 404],
        ['GET', (ref) => `/api/v1/webhooks/${ref}/${hook.id}/deliveries`, 404],
      ];
      for (const user of outsiders) {
        for (const [method, path, status, payload] of routes) {
          for (const ref of [hidden.slug, hidden.id]) {
            const seen = await app.request(method, path(ref), { token: user.token, body: payload });
            const unknown = await app.request(method, path(`x${ref}`), { token: user.token, body: payload });
            expect(expectErrorBody(seen, status).message, `${method} ${path(ref)}`).toBe(`Project "${ref}" not found`);
            expect(expectErrorBody(unknown, status).message).toBe(`Project "x${ref}" not found`);
          }
        }
      }
      const listed = await app.request<WebhookBody[]>('GET', `/api/v1/webhooks/${hidden.slug}`, { token: app.admin });
      expect(listed.body).toMatchObject([{ id: hook.id, name: 'hook' }]);
      // A caller who sees the project without its app.admin role is told so.
      const viewer = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: hidden.id, role: 'viewer' }] });
      expectErrorBody(await app.request('GET', `/api/v1/webhooks/${hidden.slug}`, { token: viewer.token }), 403);
      expectErrorBody(await createHook({ url: 'http://127.0.0.1:9/x' }, hidden.slug, viewer.token), 403);
    });

    it('updates fields, rotates the secret on request only, and answers 400/404', async () => {
      const { body } = await createHook({ url: 'http://127.0.0.1:9/x' });
      const put = (id: string, payload: unknown, query = '') =>
        app.request<WebhookBody>('PUT', `/api/v1/webhooks/${project.slug}/${id}${query}`, { token: app.admin, body: payload });
      const updated = await put(body.id, { name: 'renamed', events: ['document.publish'], active: false });
      expect(updated.body).toMatchObject({ name: 'renamed', events: ['document.publish'], active: false });
      expect(updated.body).not.toHaveProperty('secret');
      const rotated = await put(body.id, {}, '?rotateSecret=true');
      expect(rotated.body.secret).toMatch(/^[0-9a-f]{64}$/);
      expect(rotated.body.secret).not.toBe(body.secret);
      expectErrorBody(await put(body.id, { events: ['nope'] }), 400);
      expectErrorBody(await put(body.id, { url: 'gopher://x' }), 400);
      expectErrorBody(await put(randomUUID(), { name: 'x' }), 404);
    });

    it('deletes a webhook with its delivery log', async () => {
      const target = await receiver();
      const { body } = await createHook({ url: target.url, events: ['document.create'] });
      await data().mutate([{ create: { _type: 'deleteMe' } }]);
      await eventually(async () => ((await deliveries(body.id)).body.length > 0 ? true : undefined));
      expect(await app.request('DELETE', `/api/v1/webhooks/${project.slug}/${body.id}`, { token: app.admin })).toMatchObject({
        status: 200,
        body: { deleted: true, id: body.id },
      });
      expect(await app.services.store.deliveries.recent(body.id, 100)).toEqual([]);
      expectErrorBody(await app.request('DELETE', `/api/v1/webhooks/${project.slug}/${body.id}`, { token: app.admin }), 404);
      expectErrorBody(await deliveries(body.id), 404);
    });
  });

  describe('deliveries', () => {
    /** A project of its own per test, so webhooks of other tests neither receive nor count. */
    async function scene() {
      const own = await createProject(app, app.admin, ['production', 'staging']);
      return {
        data: (dataset = 'production') => dataClient(app, app.admin, own.slug, dataset),
        async hook(body: Record<string, unknown>): Promise<WebhookBody> {
          const created = await createHook(body, own.slug);
          if (created.status !== 201) throw new Error(`webhook not created: ${JSON.stringify(created.body)}`);
          return created.body;
        },
        deliveries: (id: string, query = '') =>
          app.request<DeliveryBody[]>('GET', `/api/v1/webhooks/${own.slug}/${id}/deliveries${query}`, { token: app.admin }),
        slug: own.slug,
      };
    }

    it('POSTs the event body with the six headers and a signature the verifier accepts', async () => {
      const s = await scene();
      const target = await receiver();
      const hook = await s.hook({ url: target.url, events: ['document.create'] });
      const { results } = ok(await s.data().mutate([{ create: { _type: 'article', title: 'x' } }]));
      const [request] = await target.waitFor(1);
      expect(request!.method).toBe('POST');
      expect(request!.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'Service-Webhook/1.0',
        'x-service-event': 'document.create',
      });
      expect(request!.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      expect(request!.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
      const body = JSON.parse(request!.rawBody);
      expect(body).toEqual({ event: 'document.create', dataset: 'production', documentId: results[0]!.id, documentType: 'article', timestamp: expect.stringMatching(/\.\d{3}Z$/) });
      const verify = (secret: string, rawBody = request!.rawBody) =>
        verifyWebhookSignature({ secret, rawBody, timestamp: request!.headers['x-service-timestamp'] as string, signature: request!.headers['x-service-signature'] as string });
      expect(verify(hook.secret!)).toBe(true);
      expect(verify('another-secret')).toBe(false);
      expect(verify(hook.secret!, request!.rawBody.replace('article', 'articl3'))).toBe(false);
      const [log] = (await eventually(async () => {
        const list = (await s.deliveries(hook.id)).body;
        return list[0]?.success ? list : undefined;
      }))!;
      expect(log).toMatchObject({ id: request!.headers['x-service-delivery'], event: 'document.create', status_code: 200, attempts: 1, success: true });
    });

    it('signs with the new secret after rotation', async () => {
      const s = await scene();
      const target = await receiver();
      const hook = await s.hook({ url: target.url });
      const rotated = await app.request<WebhookBody>('PUT', `/api/v1/webhooks/${s.slug}/${hook.id}?rotateSecret=true`, { token: app.admin, body: {} });
      await s.data().mutate([{ create: { _type: 'rotated' } }]);
      const [request] = await target.waitFor(1);
      const check = (secret: string) =>
        verifyWebhookSignature({ secret, rawBody: request!.rawBody, timestamp: request!.headers['x-service-timestamp'] as string, signature: request!.headers['x-service-signature'] as string });
      expect(check(rotated.body.secret!)).toBe(true);
      expect(check(hook.secret!)).toBe(false);
    });

    it('retries 5xx after 1 s and then 5 s, keeping the delivery id', async () => {
      const s = await scene();
      const target = await receiver((index) => (index < 2 ? 503 : 200));
      const hook = await s.hook({ url: target.url });
      await s.data().mutate([{ create: { _type: 'retried' } }]);
      const requests = await target.waitFor(3, 20_000);
      const ids = new Set(requests.map((request) => request.headers['x-service-delivery']));
      expect(ids.size).toBe(1);
      expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(950);
      expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(4950);
      const log = await eventually(async () => {
        const [entry] = (await s.deliveries(hook.id)).body;
        return entry?.success ? entry : undefined;
      });
      expect(log).toMatchObject({ attempts: 3, success: true, status_code: 200 });
    });

    it('gives up after three failed attempts', async () => {
      const s = await scene();
      const target = await receiver(() => 500);
      const hook = await s.hook({ url: target.url });
      await s.data().mutate([{ create: { _type: 'doomed' } }]);
      const log = await eventually(async () => {
        const [entry] = (await s.deliveries(hook.id)).body;
        return entry?.status === 'failed' ? entry : undefined;
      }, 20_000);
      expect(log).toMatchObject({ attempts: 3, success: false, status_code: 500 });
      expect(target.requests).toHaveLength(3);
    });

    it.each([400, 401, 403, 404, 410, 422])('does not retry a permanent %i', async (status) => {
      const s = await scene();
      const target = await receiver(() => status);
      const hook = await s.hook({ url: target.url });
      await s.data().mutate([{ create: { _type: 'permanent' } }]);
      const log = await eventually(async () => {
        const [entry] = (await s.deliveries(hook.id)).body;
        return entry?.status === 'failed' ? entry : undefined;
      });
      expect(log).toMatchObject({ attempts: 1, success: false, status_code: status, response_body: `answer ${status}` });
      await new Promise((resolve) => setTimeout(resolve, 1300));
      expect(target.requests).toHaveLength(1);
    });

    it('counts a redirect as a failure and does not follow it', async () => {
      const s = await scene();
      const elsewhere = await receiver();
      const target = await receiver((_index, _request, response) => {
        response.writeHead(302, { location: elsewhere.url }).end();
      });
      const hook = await s.hook({ url: target.url });
      await s.data().mutate([{ create: { _type: 'redirected' } }]);
      const log = await eventually(async () => {
        const [entry] = (await s.deliveries(hook.id)).body;
        return entry?.status === 'failed' ? entry : undefined;
      });
      expect(log).toMatchObject({ success: false, status_code: 302, attempts: 1 });
      expect(log.error).toContain('redirect');
      expect(elsewhere.requests).toHaveLength(0);
    });

    it('filters by dataset and event name; inactive webhooks stay silent', async () => {
      const s = await scene();
      const staging = await receiver();
      const publishOnly = await receiver();
      const inactive = await receiver();
      await s.hook({ url: staging.url, dataset: 'staging', events: ['document.create'] });
      await s.hook({ url: publishOnly.url, events: ['document.publish'] });
      await s.hook({ url: inactive.url, events: ['document.create'], active: false });
      await s.data().mutate([{ create: { _id: 'drafts.filtered', _type: 'post' } }]);
      await s.data('staging').mutate([{ create: { _type: 'post' } }]);
      await s.data().publish('filtered');
      const [stagingRequest] = await staging.waitFor(1);
      expect(JSON.parse(stagingRequest!.rawBody)).toMatchObject({ dataset: 'staging', event: 'document.create' });
      const [published] = await publishOnly.waitFor(1);
      expect(JSON.parse(published!.rawBody)).toMatchObject({ event: 'document.publish', documentId: 'filtered' });
      await app.services.webhookWorker.tick();
      await app.services.webhookWorker.settled();
      expect(staging.requests).toHaveLength(1);
      expect(publishOnly.requests).toHaveLength(1);
      expect(inactive.requests).toHaveLength(0);
    });

    it('delivers asset events with the asset body', async () => {
      const s = await scene();
      const target = await receiver();
      await s.hook({ url: target.url, events: ['asset.upload'] });
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('hello')]), 'hello.txt');
      const upload = await fetch(`${app.url}/api/v1/assets/production`, { method: 'POST', headers: { authorization: `Bearer ${app.admin}`, 'x-project': s.slug }, body: form });
      const { assetId } = (await upload.json()) as { assetId: string };
      const [request] = await target.waitFor(1);
      expect(JSON.parse(request!.rawBody)).toEqual({ event: 'asset.upload', dataset: 'production', assetId, assetType: 'file', timestamp: expect.any(String) });
    });

    it('keeps the last 50 deliveries of a webhook', async () => {
      const s = await scene();
      const target = await receiver();
      const hook = await s.hook({ url: target.url });
      for (let i = 0; i < 11; i++) await s.data().mutate(Array.from({ length: 5 }, () => ({ create: { _type: 'many' } })));
      await target.waitFor(55, 30_000);
      await app.services.webhookWorker.settled();
      const all = await eventually(async () => {
        const list = (await s.deliveries(hook.id, '?limit=100')).body;
        return list.length === 50 && list.every((entry) => entry.success) ? list : undefined;
      });
      expect(all).toHaveLength(50);
      expect((await s.deliveries(hook.id)).body).toHaveLength(50);
      expect((await s.deliveries(hook.id, '?limit=3')).body).toHaveLength(3);
      expectErrorBody(await s.deliveries(hook.id, '?limit=101'), 400);
    });

    it('keeps the last 50 finished deliveries while others are pending', async () => {
      const s = await scene();
      // The first 60 are answered; later ones are held open, so they stay pending meanwhile.
      const target = await receiver((index) => (index < 60 ? 200 : 'hold'));
      const hook = await s.hook({ url: target.url });
      for (let i = 0; i < 11; i++) await s.data().mutate(Array.from({ length: 5 }, () => ({ create: { _type: 'many' } })));
      await target.waitFor(55, 30_000);
      await s.data().mutate(Array.from({ length: 20 }, () => ({ create: { _type: 'many' } })));
      // 60 answered, 15 pending: the log keeps 50 of the answered ones and every pending one.
      const count = (list: DeliveryBody[], status: string) => list.filter((entry) => entry.status === status).length;
      const log = await eventually(async () => {
        const list = (await s.deliveries(hook.id, '?limit=100')).body;
        return count(list, 'pending') === 15 && count(list, 'succeeded') === 50 ? list : undefined;
      });
      expect(log).toHaveLength(65);
    });

    it('lets a slow receiver hold up neither mutations nor other webhooks', async () => {
      const s = await scene();
      const slow = await receiver(() => 'hold');
      const fast = await receiver();
      await s.hook({ url: slow.url });
      await s.hook({ url: fast.url });
      await s.data().mutate([{ create: { _type: 'first' } }]);
      await slow.waitFor(1);
      await fast.waitFor(1);
      const started = Date.now();
      ok(await s.data().mutate([{ create: { _type: 'second' } }]));
      const elapsed = Date.now() - started;
      await fast.waitFor(2);
      expect(slow.requests.length).toBeGreaterThanOrEqual(1);
      expect(elapsed).toBeLessThan(5_000);
    });
  });
});
