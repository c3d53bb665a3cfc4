import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const S3 = { BLOB_STORE: 's3', S3_BUCKET: 'assets' };

describe('configuration for a cluster', () => {
  it('defaults to the filesystem blob store, no shutdown delay and a 30 s shutdown limit', () => {
    expect(loadConfig({})).toMatchObject({ blobStore: 'fs', s3: undefined, shutdownDelayMs: 0, shutdownTimeoutMs: 30_000, trustProxy: false });
  });

  it('reads the S3 settings', () => {
    const config = loadConfig({
      ...S3,
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-north-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: 'cms',
      S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'very-secret-key',
      S3_CACHE_MAX_MB: '64',
      SHUTDOWN_DELAY_MS: '5000',
      SHUTDOWN_TIMEOUT_MS: '60000',
    });
    expect(config).toMatchObject({ blobStore: 's3', shutdownDelayMs: 5000, shutdownTimeoutMs: 60_000 });
    expect(config.s3).toMatchObject({
      bucket: 'assets',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-north-1',
      forcePathStyle: true,
      prefix: 'cms/',
      cacheMaxBytes: 64 * 1024 * 1024,
      credentials: { accessKeyId: 'AKIDEXAMPLE' },
    });
    expect(config.s3!.credentials!.secretAccessKey).toBe('very-secret-key');
    expect(loadConfig(S3).s3).toMatchObject({ region: 'us-east-1', endpoint: undefined, forcePathStyle: false, prefix: '', credentials: undefined });
  });

  it('reads TRUST_PROXY as a hop count or a list of addresses and ranges', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1' }).trustProxy).toBe('10.0.0.0/8,192.168.1.7,::1');
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('never shows the S3 secret when the configuration is serialized or inspected', () => {
    const config = loadConfig({ ...S3, S3_ACCESS_KEY_ID: 'AKIDEXAMPLE', S3_SECRET_ACCESS_KEY: 'very-secret-key' });
    expect(JSON.stringify(config)).not.toContain('very-secret-key');
    expect(inspect(config, { depth: 10 })).not.toContain('very-secret-key');
  });

  it.each([
    [{ BLOB_STORE: 'gcs' }, /BLOB_STORE must be fs or s3/],
    [{ BLOB_STORE: 's3' }, /S3_BUCKET must be set/],
    [{ ...S3, S3_ENDPOINT: 'localhost:9000' }, /S3_ENDPOINT must be an http/],
    [{ ...S3, S3_PREFIX: '/abs' }, /S3_PREFIX/],
    [{ ...S3, S3_PREFIX: 'a/../b' }, /S3_PREFIX/],
    [{ ...S3, S3_ACCESS_KEY_ID: 'only-the-id' }, /must be set together/],
    [{ ...S3, S3_FORCE_PATH_STYLE: 'yes' }, /S3_FORCE_PATH_STYLE must be true or false/],
    [{ ...S3, S3_CACHE_MAX_MB: '0' }, /S3_CACHE_MAX_MB/],
    [{ SHUTDOWN_DELAY_MS: '-1' }, /SHUTDOWN_DELAY_MS/],
    [{ SHUTDOWN_TIMEOUT_MS: '10' }, /SHUTDOWN_TIMEOUT_MS/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: 'lb.internal' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '10.0.0.0/99' }, /TRUST_PROXY/],
    [{ TRUST_PROXY: '0' }, /TRUST_PROXY/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
