import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDurationSeconds } from '../../src/config.ts';

describe('configuration', () => {
  it('has the defaults of the operating contract', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      redisUrl: undefined,
      jwtSecret: undefined,
      jwtAccessExpiresInSeconds: 900,
      jwtRefreshExpiresInSeconds: 7 * 86400,
      bcryptRounds: 12,
      rateLimitPerMinute: 100,
      rateLimitAuthPerMinute: 10,
      webhookAllowPrivateUrls: false,
      schedulerIntervalMs: 1000,
      schemaPath: undefined,
      logLevel: 'info',
      nodeEnv: 'development',
    });
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.databaseUrl).toBe(`sqlite:${config.dataDir}/content.db`);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db/cms',
      REDIS_URL: 'redis://cache:6379',
      JWT_SECRET: 's',
      JWT_ACCESS_EXPIRES_IN: '5m',
      JWT_REFRESH_EXPIRES_IN: '12h',
      BCRYPT_ROUNDS: '10',
      RATE_LIMIT_PER_MINUTE: '500',
      RATE_LIMIT_AUTH_PER_MINUTE: '20',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      SCHEDULER_INTERVAL_MS: '250',
      SCHEMA_PATH: './schema.json',
      LOG_LEVEL: 'debug',
      ADMIN_EMAIL: 'a@b.co',
      ADMIN_PASSWORD: 'secret-secret',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u:p@db/cms',
      redisUrl: 'redis://cache:6379',
      jwtAccessExpiresInSeconds: 300,
      jwtRefreshExpiresInSeconds: 43200,
      bcryptRounds: 10,
      rateLimitPerMinute: 500,
      rateLimitAuthPerMinute: 20,
      webhookAllowPrivateUrls: true,
      schedulerIntervalMs: 250,
      schemaPath: './schema.json',
      logLevel: 'debug',
      adminEmail: 'a@b.co',
      adminPassword: 'secret-secret',
    });
  });

  it('needs a JWT secret of 32 characters or more in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'short' })).toThrow(/at least 32/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).nodeEnv).toBe('production');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BCRYPT_ROUNDS', '2'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes'],
    ['JWT_ACCESS_EXPIRES_IN', 'soon'],
    ['DATABASE_URL', 'mysql://x'],
    ['HEAP_LIMIT_MB', '64'],
    ['HEAP_LIMIT_MB', '-1'],
    ['HEAP_LIMIT_MB', '1e9'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it("bounds the server's heap at 512 MB unless HEAP_LIMIT_MB says otherwise (0: Node's own sizing)", () => {
    expect(loadConfig({}).heapLimitMb).toBe(512);
    expect(loadConfig({ HEAP_LIMIT_MB: '0' }).heapLimitMb).toBe(0);
    expect(loadConfig({ HEAP_LIMIT_MB: '256' }).heapLimitMb).toBe(256);
  });

  it('keeps compiled code beside the installation unless COMPILE_CACHE_DIR says where, or off', () => {
    expect(loadConfig({}).compileCacheDir).toMatch(/\/node_modules\/\.cache\/cms-compile$/);
    expect(loadConfig({ COMPILE_CACHE_DIR: '/var/cache/cms' }).compileCacheDir).toBe('/var/cache/cms');
    expect(loadConfig({ COMPILE_CACHE_DIR: 'off' }).compileCacheDir).toBeUndefined();
  });

  it('parses durations', () => {
    expect(parseDurationSeconds('X', '900')).toBe(900);
    expect(parseDurationSeconds('X', '30s')).toBe(30);
    expect(parseDurationSeconds('X', '15m')).toBe(900);
    expect(parseDurationSeconds('X', '2h')).toBe(7200);
    expect(parseDurationSeconds('X', '7d')).toBe(604800);
    expect(() => parseDurationSeconds('X', '500ms')).toThrow('at least one second');
  });
});
