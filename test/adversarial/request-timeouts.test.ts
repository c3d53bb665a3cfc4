import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { rawRequest } from '../helpers/raw-request.ts';

// REQUEST_IDLE_TIMEOUT_MS closes a connection whose client stops sending its request, and only
// that: once the request has arrived, the server may take longer to answer it.
describe(`request timeouts (${testEngine})`, () => {
  const app = useTestApp({ REQUEST_IDLE_TIMEOUT_MS: '1000', QUERY_TIMEOUT_MS: '60000', QUERY_SLICE_MS: '50' });
  let slug: string;

  beforeAll(async () => {
    slug = (await createProject(app, app.admin)).slug;
    const data = dataClient(app, app.admin, slug);
    ok(await data.mutate(Array.from({ length: 60 }, (_, i) => ({ create: { _id: `doc-${i}`, _type: 'thing', n: i } }))));
  });

  it('closes the connection of a client that stops sending its body', async () => {
    const stalled = rawRequest(app.url, 'POST', '/api/v1/data/mutate/production', {
      authorization: `Bearer ${app.admin}`,
      'x-project': slug,
      'content-type': 'application/json',
      'content-length': '1000',
    });
    await stalled.write('{"mutations": [');
    const closed = new Promise<void>((resolve) => stalled.socket.once('close', () => resolve()));
    await closed;
    expect(stalled.answered()).toBe(false);
  });

  it('answers a request that takes the server longer than the idle timeout, once it has arrived', async () => {
    // 60^4 evaluations, seconds of work in a query worker while the connection carries nothing.
    const query = 'count(*[count(*[count(*[count(*[n + ^.n + ^.^.n + ^.^.^.n == -1]) == 0]) == 0]) == 0])';
    const response = await dataClient(app, app.admin, slug).query(query);
    expect(ok(response).result).toBe(60);
  });
});
