import { mkdtempSync, rmSync } from 'node:fs';
import { constants } from 'node:http2';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalCertificate } from '../../src/http/local-certificate.ts';
import { readTlsCredentials, type TlsCredentials } from '../../src/http/tls.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { connectHttp2, type Http2Client } from '../helpers/http2-client.ts';
import { testEngine } from '../helpers/engine.ts';

// Built-in TLS serves HTTP/2 (Sanity Studio's seven listeners stall six HTTP/1.1 connections) and
// still HTTP/1.1 through ALPN: everything the API does must work on both.
describe(`HTTPS with HTTP/2 (${testEngine})`, () => {
  let dir: string;
  let tls: TlsCredentials;
  let app: TestApp;
  let admin: string;
  const clients: Http2Client[] = [];
  /** A new connection: with REQUEST_IDLE_TIMEOUT_MS at 1 s, a connection idle between tests is closed. */
  async function connect(): Promise<Http2Client> {
    const client = await connectHttp2(app.url, tls.cert);
    clients.push(client);
    return client;
  }
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-h2-'));
    tls = readTlsCredentials(await ensureLocalCertificate(join(dir, 'tls')));
    process.on('warning', onWarning);
    app = await startTestApp({ REQUEST_IDLE_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '3000', QUERY_TIMEOUT_MS: '60000', QUERY_SLICE_MS: '50' }, { tls });
    const client = await connect();
    const login = await client.request<{ accessToken: string }>('POST', '/api/v1/auth/login', { body: { email: 'admin@example.com', password: 'admin-password-1' } });
    admin = login.body.accessToken;
    const project = await client.request('POST', '/api/v1/projects', { token: admin, body: { name: 'H2', slug: 'h2', datasets: ['production'] } });
    expect(project.status).toBe(201);
    const docs = Array.from({ length: 60 }, (_, i) => ({ create: { _id: `doc-${i}`, _type: 'thing', n: i } }));
    expect((await client.request('POST', '/api/v1/data/mutate/production', { token: admin, headers: { 'x-project': 'h2' }, body: { mutations: docs } })).status).toBe(200);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('negotiates HTTP/2 through ALPN and answers the API over it', async () => {
    const client = await connect();
    expect(client.session.alpnProtocol).toBe('h2');
    const health = await client.request<{ status: string }>('GET', '/api/v1/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    expect(health.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('still answers HTTP/1.1 clients on the same port', async () => {
    const version = await new Promise<string>((resolve, reject) => {
      get(`${app.url}/api/v1/health`, { ca: tls.cert, servername: 'localhost' }, (response) => {
        response.resume();
        resolve(response.httpVersion);
      }).on('error', reject);
    });
    expect(version).toBe('1.1');
  });

  it('streams Server-Sent Events over HTTP/2, several at once on one connection', async () => {
    const client = await connect();
    const query = encodeURIComponent('*[_type == "note"]');
    const streams = Array.from({ length: 8 }, () =>
      client.open('GET', `/api/v1/data/listen/production?query=${query}&includeResult=true`, { authorization: `Bearer ${admin}`, 'x-project': 'h2', accept: 'text/event-stream' }),
    );
    const texts = streams.map((stream) => {
      const seen = { text: '' };
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (seen.text += chunk));
      return seen;
    });
    await until(() => texts.every((seen) => seen.text.includes('event: welcome')));
    const created = await client.request('POST', '/api/v1/data/mutate/production', { token: admin, headers: { 'x-project': 'h2' }, body: { mutations: [{ create: { _id: 'note-1', _type: 'note' } }] } });
    expect(created.status).toBe(200);
    await until(() => texts.every((seen) => seen.text.includes('"documentId":"note-1"')));
    for (const stream of streams) stream.close();
    // Connection headers are HTTP/1 only: none was set on an HTTP/2 response.
    expect(warnings.filter((message) => /connection header/i.test(message))).toEqual([]);
  });

  it('upgrades WebSocket listeners on HTTP/1.1 connections of the TLS server', async () => {
    const socket = new WebSocket(`${app.url.replace(/^https/, 'wss')}/api/v1/data/listen/production?project=h2`, {
      headers: { authorization: `Bearer ${admin}` },
      ca: tls.cert,
    });
    const messages: { type: string }[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data)) as { type: string }));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'subscribe', query: '*[_type == "note"]' }));
    await until(() => messages.some((message) => message.type === 'welcome'));
    socket.close();
  });

  /** A mutation whose body announces `length` bytes and sends its first few: the status stays 0 unless the server answers. */
  function startMutation(client: Http2Client, length: number) {
    const stream = client.open('POST', '/api/v1/data/mutate/production', {
      authorization: `Bearer ${admin}`,
      'x-project': 'h2',
      'content-type': 'application/json',
      'content-length': String(length),
    });
    stream.on('error', () => undefined);
    const answered = { status: 0 };
    stream.on('response', (headers) => (answered.status = Number(headers[':status'])));
    stream.write('{"mutations": [');
    return { stream, answered };
  }

  it('cuts off a stream whose body stalls; the server goes on', async () => {
    const client = await connect();
    const { stream: stalled, answered } = startMutation(client, 1000);
    await new Promise<void>((resolve) => stalled.once('close', () => resolve()));
    expect(answered.status).toBe(0);
    expect(stalled.rstCode).toBe(constants.NGHTTP2_CANCEL);
    expect((await (await connect()).request('GET', '/api/v1/health')).status).toBe(200);
  });

  it('cuts off a stream whose body trickles in past the request timeout; a listener open longer goes on', async () => {
    const client = await connect();
    const query = encodeURIComponent('*[_type == "trickle"]');
    const listener = client.open('GET', `/api/v1/data/listen/production?query=${query}`, { authorization: `Bearer ${admin}`, 'x-project': 'h2', accept: 'text/event-stream' });
    const heard = { text: '' };
    listener.setEncoding('utf8');
    listener.on('data', (chunk: string) => (heard.text += chunk));
    await until(() => heard.text.includes('event: welcome'));

    const { stream: trickle, answered } = startMutation(client, 100_000);
    // A byte well within the idle timeout each time: only the whole-request timeout can end it.
    const drip = setInterval(() => trickle.write(' '), 200);
    try {
      await new Promise<void>((resolve) => trickle.once('close', () => resolve()));
    } finally {
      clearInterval(drip);
    }
    expect(answered.status).toBe(0);
    expect(trickle.rstCode).toBe(constants.NGHTTP2_CANCEL);

    // The listener's request arrived whole long ago: its stream is not a slow request.
    const created = await client.request('POST', '/api/v1/data/mutate/production', { token: admin, headers: { 'x-project': 'h2' }, body: { mutations: [{ create: { _id: 'trickle-1', _type: 'trickle' } }] } });
    expect(created.status).toBe(200);
    await until(() => heard.text.includes('"documentId":"trickle-1"'));
    listener.close();
  });

  // 60^4 evaluations: seconds in a query worker while the connection carries no frame.
  const slowQuery = 'count(*[_type == "thing" && count(*[count(*[count(*[n + ^.n + ^.^.n + ^.^.^.n == -1]) == 0]) == 0]) == 0])';

  it('answers a request that the server takes longer than the idle timeout to compute', async () => {
    const client = await connect();
    const response = await client.request<{ result: number }>('POST', '/api/v1/data/query/production', { token: admin, headers: { 'x-project': 'h2' }, body: { query: slowQuery } });
    expect(response.status).toBe(200);
    expect(response.body.result).toBe(60);
  });

  it('answers a request without a body that the server takes longer than the idle timeout to compute', async () => {
    const client = await connect();
    const response = await client.request<{ result: number }>('GET', `/api/v1/data/query/production?query=${encodeURIComponent(slowQuery)}`, { token: admin, headers: { 'x-project': 'h2' } });
    expect(response.status).toBe(200);
    expect(response.body.result).toBe(60);
  });

  it('gives a listener slot back when an event stream over HTTP/2 closes (LISTENERS_PER_CALLER)', async () => {
    const settings = app.services.realtime.settings;
    const before = settings.listenersPerCaller;
    settings.listenersPerCaller = 2;
    const client = await connect();
    const path = `/api/v1/data/listen/production?query=${encodeURIComponent('*[_type == "slot"]')}`;
    const headers = { authorization: `Bearer ${admin}`, 'x-project': 'h2', accept: 'text/event-stream' };
    /** Opens a stream; resolves with its status once the headers come, and its text so far. */
    const open = async () => {
      const stream = client.open('GET', path, headers);
      const seen = { text: '' };
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (seen.text += chunk));
      const status = await new Promise<number>((resolve) => stream.once('response', (response) => resolve(Number(response[':status']))));
      return { stream, status, seen };
    };
    try {
      const first = await open();
      const second = await open();
      expect([first.status, second.status]).toEqual([200, 200]);
      const refused = await open();
      expect(refused.status).toBe(429);
      await until(() => refused.seen.text.includes('LISTENERS_PER_CALLER'));
      first.stream.close();
      // The server sees the stream close and gives its slot back.
      let again = await open();
      for (const deadline = Date.now() + 15_000; again.status === 429 && Date.now() < deadline; again = await open()) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(again.status).toBe(200);
      second.stream.close();
      again.stream.close();
    } finally {
      settings.listenersPerCaller = before;
    }
  });

  it('on close, tells open listeners to reconnect and ends their streams', async () => {
    const client = await connect();
    const stream = client.open('GET', `/api/v1/data/listen/production?query=${encodeURIComponent('*')}`, { authorization: `Bearer ${admin}`, 'x-project': 'h2' });
    const seen = { text: '', ended: false };
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (seen.text += chunk));
    stream.on('close', () => (seen.ended = true));
    await until(() => seen.text.includes('event: welcome'));
    const closing = app.app.close();
    await until(() => seen.ended);
    await closing;
    expect(seen.text).toContain('event: reconnect');
  });
});

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
