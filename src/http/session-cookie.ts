import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The login page also sets its session as a cookie on the API's paths, so that images load in
 * `<img>` (which sends no Authorization header). Only GET routes of asset content accept it
 * (route config `cookieAuth`): a cookie cannot be used to change anything, so no request forged
 * from another site can write with it.
 */
export const SESSION_COOKIE = 'cms_session';
const COOKIE_PATH = '/api';

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    // Lax: sent with a same-site <img>. A studio on another site needs a secure, SameSite=None cookie.
    sameSite: request.protocol === 'https' ? 'none' : 'lax',
    secure: request.protocol === 'https',
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
}
