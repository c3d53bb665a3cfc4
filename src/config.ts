import { resolve } from 'node:path';

/**
 * Configuration is read from the environment once, validated, frozen and passed down.
 * Nothing below this module reads process.env.
 */
export const DEFAULT_JWT_SECRET = 'insecure-development-secret-change-me';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** `sqlite:<file>` resolved to a path, or a postgres:// URL. */
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key, so deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  readonly jwtSecret: string;
  readonly jwtAccessExpiresInSeconds: number;
  readonly jwtRefreshExpiresInSeconds: number;
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  readonly bcryptRounds: number;
  readonly rateLimitPerMinute: number;
  readonly rateLimitAuthPerMinute: number;
  readonly webhookAllowPrivateUrls: boolean;
  readonly schedulerIntervalMs: number;
  readonly schemaPath: string | undefined;
  /** The largest import body accepted, in bytes. */
  readonly importBodyLimitBytes: number;
  readonly logLevel: string;
  readonly nodeEnv: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

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

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV || 'development';
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = optional(env, 'DATABASE_URL') ?? `sqlite:${resolve(dataDir, 'content.db')}`;
  if (!/^(postgres|postgresql):\/\//.test(databaseUrl) && !databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }
  const jwtSecret = optional(env, 'JWT_SECRET') ?? DEFAULT_JWT_SECRET;
  if (nodeEnv === 'production' && jwtSecret === DEFAULT_JWT_SECRET) {
    throw new ConfigError('JWT_SECRET must be set in production (the default development secret is refused)');
  }
  if (nodeEnv === 'production' && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters in production');
  }
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
    adminEmail: optional(env, 'ADMIN_EMAIL'),
    adminPassword: optional(env, 'ADMIN_PASSWORD'),
    bcryptRounds: integer(env, 'BCRYPT_ROUNDS', 12, 4, 31),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100, 1, 1_000_000_000),
    rateLimitAuthPerMinute: integer(env, 'RATE_LIMIT_AUTH_PER_MINUTE', 10, 1, 1_000_000_000),
    webhookAllowPrivateUrls: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_URLS'),
    schedulerIntervalMs: integer(env, 'SCHEDULER_INTERVAL_MS', 1000, 10, 86_400_000),
    schemaPath: optional(env, 'SCHEMA_PATH'),
    importBodyLimitBytes: integer(env, 'IMPORT_BODY_LIMIT_MB', 10_240, 1, 1_048_576) * 1024 * 1024,
    logLevel: env.LOG_LEVEL || 'info',
    nodeEnv,
  });
}
