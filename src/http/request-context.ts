import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, unauthorized } from '../errors.ts';
import { callerKey, type Principal } from '../access/principal.ts';
import type { AuthService } from '../identity/auth-service.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';
import { SESSION_COOKIE } from './session-cookie.ts';
import { SESSION_TOKEN_PREFIX } from '../identity/auth-service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated principal, or null for anonymous requests. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /**
     * `public` routes take no bearer credential (health, /auth/*, docs); `optional` ones read one
     * when it is sent (a wrong one is still a 401) and serve anonymous requests too; everything
     * else requires one.
     */
    access?: 'public' | 'optional';
    /** `auth` routes are counted against the separate, stricter /auth/* limit. */
    rateLimitGroup?: 'auth' | 'static';
    /**
     * Also accept the credential as the query parameter `access_token`: browsers cannot set headers
     * on WebSocket and EventSource connections. The logger masks it in URLs.
     */
    queryToken?: true;
    /** Also accept the login page's session cookie (GET of asset content, which `<img>` loads without headers). */
    cookieAuth?: true;
  }
}

export interface RequestContextOptions {
  auth: AuthService;
  rateLimiter: RateLimiter;
  limitPerMinute: number;
  authLimitPerMinute: number;
  /** Requests of login-page sessions (Sanity Studio): an editing UI makes many small requests. */
  sessionLimitPerMinute: number;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * One onRequest hook for every route (unknown routes included): identify the caller, count the
 * request against its rate limit (headers on every response, errors too), then refuse anonymous
 * access to protected routes. It runs before the body is parsed, so a request that will be
 * refused costs no parsing.
 */
async function requestContext(app: FastifyInstance, options: RequestContextOptions): Promise<void> {
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    // Preflights carry no credentials by design; answered by the CORS hook, or refused as not found.
    const open = config.access === 'public' || request.method === 'OPTIONS';
    let authError: AppError | null = null;
    if (!open) {
      try {
        request.principal = await identify(request, options.auth);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        authError = error;
      }
    }

    const group = rateLimitGroupOf(request);
    const subject = callerOf(request);
    const limit = limitOf(group, options);
    const decision = await options.rateLimiter.hit(`${group}:${subject}`, limit);
    reply.header('X-RateLimit-Limit', decision.limit);
    reply.header('X-RateLimit-Remaining', decision.remaining);
    reply.header('X-RateLimit-Reset', decision.resetAt);
    if (!decision.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit exceeded: retry in ${decision.retryAfter} seconds`, {
        'Retry-After': String(decision.retryAfter),
      });
    }

    // Unknown routes answer 404 whoever asks; known protected routes need a principal.
    if (authError && request.is404 !== true) throw authError;
    if (!open && config.access !== 'optional' && request.is404 !== true && !request.principal) {
      throw unauthorized('Missing bearer token: send Authorization: Bearer <token>');
    }
  });
}

type RateLimitGroup = 'auth' | 'static' | 'session' | 'api';

/** A page of a built Studio loads a score of files: static files count on a counter of their own, at 20 times the API's limit. */
const STATIC_FACTOR = 20;

function limitOf(group: RateLimitGroup, options: RequestContextOptions): number {
  switch (group) {
    case 'auth':
      return options.authLimitPerMinute;
    case 'static':
      return options.limitPerMinute * STATIC_FACTOR;
    case 'session':
      return options.sessionLimitPerMinute;
    case 'api':
      return options.limitPerMinute;
  }
}

/**
 * Which counter a request counts against: `/auth/*` and the login page have their own, stricter
 * one; a built Studio's static files theirs; a login-page session (Studio, which makes hundreds of
 * requests a minute while an editor works) its own, larger one; everything else the API's
 * per-minute limit (RATE_LIMIT_PER_MINUTE).
 */
function rateLimitGroupOf(request: FastifyRequest): RateLimitGroup {
  const configured = request.routeOptions.config.rateLimitGroup;
  if (configured !== undefined) return configured;
  if (request.principal?.kind === 'user' && credentialOf(request)?.startsWith(SESSION_TOKEN_PREFIX)) return 'session';
  return 'api';
}

/** Who is asking, as limits count it: the principal, or the client address of an anonymous request. */
export function callerOf(request: FastifyRequest): string {
  return request.principal ? callerKey(request.principal) : `ip:${request.ip}`;
}

async function identify(request: FastifyRequest, auth: AuthService): Promise<Principal | null> {
  const credential = credentialOf(request);
  return credential === undefined ? null : auth.authenticate(credential);
}

/** The request's credential: `Authorization: Bearer`, else `access_token` where the route accepts it. */
export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) {
    const config = request.routeOptions.config;
    if (config.cookieAuth === true) return request.cookies[SESSION_COOKIE] || undefined;
    if (config.queryToken !== true) return undefined;
    const token = (request.query as Record<string, unknown> | undefined)?.access_token;
    return typeof token === 'string' && token.length > 0 ? token : undefined;
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <token>"');
  return match[1];
}

export const requestContextPlugin = fp(requestContext, { name: 'request-context' });

/** The principal of a protected route's request (the hook above guarantees one). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
