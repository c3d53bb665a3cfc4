import Fastify, { type FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.ts';
import { frameworkErrors, registerErrorHandling } from '../../src/http/error-handler.ts';
import { badRequest, internalError } from '../../src/errors.ts';
import { memoryLog } from '../helpers/memory-log.ts';

describe('unexpected errors', () => {
  const log = memoryLog();
  const app = Fastify({ loggerInstance: createLogger('info', log.stream) as FastifyBaseLogger, frameworkErrors, routerOptions: { maxParamLength: 20 } });

  beforeAll(async () => {
    registerErrorHandling(app);
    app.get('/thrown', async () => {
      throw new TypeError('a bug deep down');
    });
    app.get('/wrapped', async () => {
      throw internalError('The query could not be executed', new RangeError('what really happened'));
    });
    app.get('/refused', async () => {
      throw badRequest('not an error of ours');
    });
    app.get('/param/:id', async () => 'ok');
    await app.ready();
  });
  afterAll(async () => app.close());

  const errorsLogged = () => log.lines.filter((line) => line.level === 50);

  it('answer a generic 500 and are logged once with their stack', async () => {
    const response = await app.inject('/thrown');
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'An internal error occurred' });
    const logged = errorsLogged().filter((line) => JSON.stringify(line).includes('a bug deep down'));
    expect(logged).toHaveLength(1);
    expect((logged[0]!.err as { stack: string }).stack).toMatch(/TypeError: a bug deep down\n\s+at /);
  });

  it('keep their cause when a service wrapped them, and log the cause with its stack', async () => {
    const response = await app.inject('/wrapped');
    expect(response.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'The query could not be executed' });
    expect(response.body).not.toContain('what really happened');
    const logged = errorsLogged().filter((line) => JSON.stringify(line).includes('what really happened'));
    expect(logged).toHaveLength(1);
    expect(logged[0]!.msg).toBe('The query could not be executed');
    expect((logged[0]!.err as { stack: string }).stack).toMatch(/RangeError: what really happened\n\s+at /);
  });

  it('are not what a 4xx is: those are not logged as errors', async () => {
    const before = errorsLogged().length;
    expect((await app.inject('/refused')).statusCode).toBe(400);
    expect(errorsLogged()).toHaveLength(before);
  });

  it('include the router refusals, which answer with the standard body', async () => {
    const long = await app.inject(`/param/${'x'.repeat(30)}`);
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ statusCode: 414, error: 'URI Too Long', message: expect.any(String) });
    const malformed = await app.inject('/param/%E0%A4%A');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: expect.any(String) });
  });
});
