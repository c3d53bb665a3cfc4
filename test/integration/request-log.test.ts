// The request log: one line per request, written when it is answered, at the default level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { memoryLog } from '../helpers/memory-log.ts';
import { createLogger } from '../../src/logging.ts';

describe('request log', () => {
  const info = memoryLog();
  const debug = memoryLog();
  let app: TestApp;
  let verbose: TestApp;

  beforeAll(async () => {
    app = await startTestApp({}, { log: createLogger('info', info.stream) });
    verbose = await startTestApp({}, { log: createLogger('debug', debug.stream) });
  });
  afterAll(async () => {
    await app.close();
    await verbose.close();
  });

  const linesOf = (log: { lines: Record<string, unknown>[] }, path: string) => log.lines.filter((line) => (line.req as { url?: string } | undefined)?.url?.startsWith(path));

  it('writes one line per request at info: method, URL with credentials masked, address, status and time', async () => {
    const token = await app.login();
    const response = await fetch(`${app.url}/api/v1/users/me?access_token=secret-value`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    await fetch(`${app.url}/api/v1/no-such-route`);
    const lines = linesOf(info, '/api/v1/users/me');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', url: '/api/v1/users/me?access_token=[redacted]', ip: '127.0.0.1' },
      res: { statusCode: 200 },
    });
    expect(lines[0]!.responseTime).toBeTypeOf('number');
    expect(JSON.stringify(info.lines)).not.toContain('secret-value');
    expect(JSON.stringify(info.lines)).not.toContain(token);
    expect(linesOf(info, '/api/v1/no-such-route')).toMatchObject([{ msg: 'request completed', res: { statusCode: 404 } }]);
  });

  it('writes the arrival of a request too at debug, and never its headers', async () => {
    await fetch(`${verbose.url}/api/v1/health`, { headers: { authorization: 'Bearer header-secret', cookie: 'cms_session=cookie-secret' } });
    const lines = linesOf(debug, '/api/v1/health');
    expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
    expect(lines.map((line) => Object.keys(line.req as object).sort())).toEqual([
      ['id', 'ip', 'method', 'url'],
      ['id', 'ip', 'method', 'url'],
    ]);
    expect(JSON.stringify(debug.lines)).not.toMatch(/header-secret|cookie-secret/);
  });
});
