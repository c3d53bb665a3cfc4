import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import { normalizeOrigin } from './http/origins.ts';

/**
 * Configuration is read from the environment once, validated, frozen and passed down.
 * Nothing below this module reads process.env.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** `sqlite:<file>` resolved to a path, or a postgres:// URL. */
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key, so deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  /** Unset: a random secret generated on the first start and kept in DATA_DIR (identity/signing-secret.ts). */
  readonly jwtSecret: string | undefined;
  readonly jwtAccessExpiresInSeconds: number;
  readonly jwtRefreshExpiresInSeconds: number;
  /** How long a sign-in through the login page (Sanity Studio's) lasts. */
  readonly sessionExpiresInSeconds: number;
  /** Origins every project lets browsers call the API from, with credentials (projects add their own through the API). */
  readonly corsOrigins: readonly string[];
  /** The service's public URL (`https://cms.example.com`): asset documents carry absolute URLs under it; unset: relative ones. */
  readonly publicUrl: string | undefined;
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  readonly bcryptRounds: number;
  readonly rateLimitPerMinute: number;
  readonly rateLimitAuthPerMinute: number;
  /** Per-minute limit of login-page sessions (Sanity Studio). */
  readonly rateLimitSessionPerMinute: number;
  readonly webhookAllowPrivateUrls: boolean;
  readonly schedulerIntervalMs: number;
  readonly schemaPath: string | undefined;
  /** The largest import body accepted, in bytes. */
  readonly importBodyLimitBytes: number;
  readonly logLevel: string;
  readonly nodeEnv: string;
  /** Where asset bytes live: `fs` (files under DATA_DIR/assets) or `s3` (an S3-compatible bucket). */
  readonly blobStore: 'fs' | 's3';
  /** Set when `blobStore` is `s3`. */
  readonly s3: S3Config | undefined;
  /** After SIGTERM, how long readiness answers 503 while requests are still served (for load balancers to notice). */
  readonly shutdownDelayMs: number;
  /** After SIGTERM, how long in-flight work may take before the process exits anyway (with code 1). */
  readonly shutdownTimeoutMs: number;
  /** The old generation of the server's heap, in MB (`cms serve` starts with it: cli/server-runtime.ts); 0: Node's own. */
  readonly heapLimitMb: number;
  /**
   * Where `cms serve` keeps Node's compiled code (NODE_COMPILE_CACHE of the process it starts again:
   * cli/server-runtime.ts); undefined: nowhere.
   */
  readonly compileCacheDir: string | undefined;
  /** How long a client may send nothing while its request is read (headers or body), and read in all. */
  readonly requestTimeouts: RequestTimeouts;
  /** What one GROQ query may cost (QUERY_* variables). */
  readonly queries: QueryLimits;
  /** Listen connections (WebSocket or Server-Sent Events) one user, token or address may hold open at once, per instance. */
  readonly listenersPerCaller: number;
  /**
   * Proxies whose X-Forwarded-For is believed for the client address (rate-limit keys): addresses
   * or CIDR ranges (Fastify's `trustProxy` string), a number of hops, or false (the socket's address).
   */
  readonly trustProxy: string | number | false;
  /** Limits of on-the-fly image transforms (IMAGE_* variables). */
  readonly images: ImageConfig;
  /** Built-in HTTPS with HTTP/2, HTTP/1.1 still accepted (TLS_CERT_FILE, TLS_KEY_FILE); unset: plain HTTP. */
  readonly tls: TlsFiles | undefined;
  /** A built Sanity Studio, served on the service's own origin (STUDIO_DIR); unset: none is served. */
  readonly studioDir: string | undefined;
}

export interface TlsFiles {
  /** PEM certificate chain, the server's certificate first. */
  readonly certFile: string;
  /** PEM private key of that certificate. */
  readonly keyFile: string;
}

export interface RequestTimeouts {
  /** A connection that sends and receives nothing this long is closed (a stalled body, an idle client). */
  readonly idleMs: number;
  /** The whole request, headers and body, must arrive within this (0: no limit). */
  readonly requestMs: number;
}

export interface QueryLimits {
  /** A query that has not answered after this long is stopped with 408. */
  readonly timeoutMs: number;
  /** The heap a query that moved to a query worker may use; past it the query is stopped with 422. */
  readonly memoryLimitMb: number;
  /** How long a query may compute at once on the server's main thread before it moves to a worker. */
  readonly sliceMs: number;
  /** The most documents a query may hold at once on the main thread before it moves to a worker. */
  readonly mainThreadDocuments: number;
  /** Worker threads for queries that moved off the main thread (each with its own database connection). */
  readonly workers: number;
}

export interface S3Config {
  readonly bucket: string;
  readonly region: string;
  /** An S3-compatible server's URL; unset means AWS S3. */
  readonly endpoint: string | undefined;
  readonly forcePathStyle: boolean;
  /** Prepended to every object key: empty, or ending with `/`. */
  readonly prefix: string;
  /** Unset: the AWS SDK's default chain (AWS_* variables, shared config, instance or task roles). */
  readonly credentials: S3Credentials | undefined;
  /** The most bytes of originals kept in the local cache under DATA_DIR/blob-cache. */
  readonly cacheMaxBytes: number;
}

export interface S3Credentials {
  readonly accessKeyId: string;
  /** Not enumerable: JSON, util.inspect and the logger leave it out. */
  readonly secretAccessKey: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** LOG_LEVEL when unset: a line per request (README, Logs). */
export const DEFAULT_LOG_LEVEL = 'info';

const DURATION = /^(\d+)\s*(ms|s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/** Parses `900`, `15m`, `7d`, `12h`, `30s` into whole seconds. */
export function parseDurationSeconds(name: string, value: string): number {
  const match = DURATION.exec(value.trim());
  if (!match) throw new ConfigError(`${name} must be a duration such as 900, 15m, 12h or 7d (got "${value}")`);
  const seconds = Math.floor(Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] ?? 1));
  if (seconds < 1) throw new ConfigError(`${name} must be at least one second`);
  return seconds;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

/** HEAP_LIMIT_MB: 0 (Node's own sizing), or at least enough for the service's own working set. */
function heapLimit(env: Env): number {
  const value = integer(env, 'HEAP_LIMIT_MB', 512, 0, 1_048_576);
  if (value !== 0 && value < 128) throw new ConfigError(`HEAP_LIMIT_MB must be 0 (Node's own sizing) or at least 128 (got "${env.HEAP_LIMIT_MB}")`);
  return value;
}

/** COMPILE_CACHE_DIR: a directory, `off`, or by default node_modules/.cache/cms-compile of the installation. */
function compileCacheDir(env: Env): string | undefined {
  if (env.COMPILE_CACHE_DIR === 'off') return undefined;
  return env.COMPILE_CACHE_DIR ? resolve(env.COMPILE_CACHE_DIR) : fileURLToPath(new URL('../node_modules/.cache/cms-compile', import.meta.url));
}

function boolean(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function s3Config(env: Env): S3Config {
  const bucket = optional(env, 'S3_BUCKET');
  if (!bucket) throw new ConfigError('S3_BUCKET must be set when BLOB_STORE is s3');
  const endpoint = optional(env, 'S3_ENDPOINT');
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(endpoint)) throw new ConfigError(`S3_ENDPOINT must be an http:// or https:// URL (got "${endpoint}")`);
  const rawPrefix = env.S3_PREFIX ?? '';
  if (rawPrefix.startsWith('/') || rawPrefix.includes('\0') || rawPrefix.split('/').includes('..')) {
    throw new ConfigError('S3_PREFIX must be a relative key prefix such as cms/ (no leading /, no ..)');
  }
  const accessKeyId = optional(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = optional(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither, for the AWS default credential chain)');
  }
  let credentials: S3Credentials | undefined;
  if (accessKeyId !== undefined && secretAccessKey !== undefined) {
    credentials = Object.freeze(Object.defineProperty({ accessKeyId }, 'secretAccessKey', { value: secretAccessKey, enumerable: false }) as S3Credentials);
  }
  return Object.freeze({
    bucket,
    region: env.S3_REGION || 'us-east-1',
    endpoint,
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE'),
    prefix: rawPrefix === '' || rawPrefix.endsWith('/') ? rawPrefix : `${rawPrefix}/`,
    credentials,
    cacheMaxBytes: integer(env, 'S3_CACHE_MAX_MB', 1024, 1, 1_048_576) * 1024 * 1024,
  });
}

/** TLS_CERT_FILE and TLS_KEY_FILE: both (HTTPS with HTTP/2) or neither (plain HTTP). */
function tlsFiles(env: Env): TlsFiles | undefined {
  const certFile = optional(env, 'TLS_CERT_FILE');
  const keyFile = optional(env, 'TLS_KEY_FILE');
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together (HTTPS with HTTP/2), or neither (plain HTTP)');
  }
  return Object.freeze({ certFile: resolve(certFile), keyFile: resolve(keyFile) });
}

function optionalPath(env: Env, name: string): string | undefined {
  const raw = optional(env, name);
  return raw === undefined ? undefined : resolve(raw);
}

/** TRUST_PROXY: unset (false), a hop count, or a comma-separated list of addresses and CIDR ranges. */
function trustProxy(env: Env): string | number | false {
  const raw = optional(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return integer(env, 'TRUST_PROXY', 0, 1, 100);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw new ConfigError(`TRUST_PROXY must be a number of hops or a comma-separated list of addresses and CIDR ranges (got "${entry}")`);
  }
  return entries.join(',');
}

/**
 * What one image transform may cost: every variant is decoded, resized and encoded in memory, and
 * a reader chooses its parameters, so decoding, output size and parallel renders are bounded.
 */
export interface ImageConfig {
  /** Originals with more pixels are served but not transformed (uploads decode at most 100 MP). */
  readonly maxInputPixels: number;
  /** The most pixels of one variant (width x height after dpr). */
  readonly maxOutputPixels: number;
  readonly maxConcurrentRenders: number;
  /** Renders that may wait for a free place; more are answered 429 at once. */
  readonly renderQueue: number;
  /** How long a render waits for a place before it is answered 429. */
  readonly renderQueueWaitMs: number;
}

function imageConfig(env: Env): ImageConfig {
  return Object.freeze({
    maxInputPixels: integer(env, 'IMAGE_MAX_INPUT_PIXELS', 70_000_000, 1, 100_000_000),
    maxOutputPixels: integer(env, 'IMAGE_MAX_OUTPUT_PIXELS', 12_000_000, 1, 4096 * 4096),
    maxConcurrentRenders: integer(env, 'IMAGE_MAX_CONCURRENT_RENDERS', 2, 1, 1024),
    renderQueue: integer(env, 'IMAGE_RENDER_QUEUE', 100, 0, 100_000),
    renderQueueWaitMs: integer(env, 'IMAGE_RENDER_QUEUE_WAIT_MS', 30_000, 1, 600_000),
  });
}

/** PUBLIC_URL: where clients reach the service, an origin with an optional path, without a trailing slash. */
function publicUrl(env: Env): string | undefined {
  const raw = optional(env, 'PUBLIC_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an http:// or https:// URL such as https://cms.example.com (got "${raw}")`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new ConfigError(`PUBLIC_URL must be an http:// or https:// URL without query or credentials (got "${raw}")`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** CORS_ORIGINS: a comma-separated list of origins such as `https://studio.example.com,http://localhost:3333`. */
function corsOrigins(env: Env): readonly string[] {
  const raw = optional(env, 'CORS_ORIGINS');
  if (raw === undefined) return Object.freeze([]);
  const origins = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  for (const origin of origins) {
    if (normalizeOrigin(origin) === undefined) throw new ConfigError(`CORS_ORIGINS must list origins such as https://studio.example.com (scheme, host and port only; got "${origin}")`);
  }
  return Object.freeze(origins.map((origin) => normalizeOrigin(origin)!));
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV || 'development';
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = optional(env, 'DATABASE_URL') ?? `sqlite:${resolve(dataDir, 'content.db')}`;
  if (!/^(postgres|postgresql):\/\//.test(databaseUrl) && !databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }
  const jwtSecret = optional(env, 'JWT_SECRET');
  // In production instances must share one secret: a secret generated per instance would sign
  // tokens the others refuse.
  if (nodeEnv === 'production' && jwtSecret === undefined) {
    throw new ConfigError('JWT_SECRET must be set in production (the same on every instance)');
  }
  if (jwtSecret !== undefined && nodeEnv === 'production' && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters in production');
  }
  const blobStore = env.BLOB_STORE || 'fs';
  if (blobStore !== 'fs' && blobStore !== 's3') throw new ConfigError(`BLOB_STORE must be fs or s3 (got "${blobStore}")`);
  return Object.freeze({
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir,
    databaseUrl: databaseUrl.startsWith('sqlite:') ? `sqlite:${resolve(databaseUrl.slice('sqlite:'.length))}` : databaseUrl,
    redisUrl: optional(env, 'REDIS_URL'),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'cms:',
    jwtSecret,
    jwtAccessExpiresInSeconds: parseDurationSeconds('JWT_ACCESS_EXPIRES_IN', env.JWT_ACCESS_EXPIRES_IN || '15m'),
    jwtRefreshExpiresInSeconds: parseDurationSeconds('JWT_REFRESH_EXPIRES_IN', env.JWT_REFRESH_EXPIRES_IN || '7d'),
    sessionExpiresInSeconds: parseDurationSeconds('SESSION_EXPIRES_IN', env.SESSION_EXPIRES_IN || '7d'),
    corsOrigins: corsOrigins(env),
    publicUrl: publicUrl(env),
    adminEmail: optional(env, 'ADMIN_EMAIL'),
    adminPassword: optional(env, 'ADMIN_PASSWORD'),
    bcryptRounds: integer(env, 'BCRYPT_ROUNDS', 12, 4, 31),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100, 1, 1_000_000_000),
    rateLimitAuthPerMinute: integer(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 10, 1, 1_000_000_000),
    rateLimitSessionPerMinute: integer(env, 'RATE_LIMIT_SESSION_PER_MINUTE', 2000, 1, 1_000_000_000),
    webhookAllowPrivateUrls: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    schedulerIntervalMs: integer(env, 'SCHEDULER_INTERVAL_MS', 1000, 10, 86_400_000),
    schemaPath: optional(env, 'SCHEMA_PATH'),
    importBodyLimitBytes: integer(env, 'IMPORT_BODY_LIMIT_MB', 10_240, 1, 1_048_576) * 1024 * 1024,
    logLevel: env.LOG_LEVEL || DEFAULT_LOG_LEVEL,
    nodeEnv,
    blobStore,
    s3: blobStore === 's3' ? s3Config(env) : undefined,
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
    heapLimitMb: heapLimit(env),
    compileCacheDir: compileCacheDir(env),
    requestTimeouts: Object.freeze({
      idleMs: integer(env, 'REQUEST_IDLE_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
      requestMs: integer(env, 'REQUEST_TIMEOUT_MS', 600_000, 0, 86_400_000),
    }),
    queries: Object.freeze({
      timeoutMs: integer(env, 'QUERY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      memoryLimitMb: integer(env, 'QUERY_MEMORY_LIMIT_MB', 256, 16, 65_536),
      sliceMs: integer(env, 'QUERY_SLICE_MS', 100, 1, 60_000),
      mainThreadDocuments: integer(env, 'QUERY_MAIN_THREAD_DOCUMENTS', 10_000, 1, 100_000_000),
      workers: integer(env, 'QUERY_WORKERS', 1, 1, 64),
    }),
    listenersPerCaller: integer(env, 'LISTENERS_PER_CALLER', 200, 1, 1_000_000),
    trustProxy: trustProxy(env),
    images: imageConfig(env),
    tls: tlsFiles(env),
    studioDir: optionalPath(env, 'STUDIO_DIR'),
  });
}
