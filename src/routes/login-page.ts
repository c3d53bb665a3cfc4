import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';
import { AppError, badRequest } from '../errors.ts';
import { constantTimeEqual, randomToken } from '../identity/secrets.ts';
import { loginPageHtml } from '../http/login-page-html.ts';
import { normalizeOrigin } from '../http/origins.ts';
import { setSessionCookie } from '../http/session-cookie.ts';

/** The form's anti-forgery value lives in a cookie only this page reads (a forged post lacks it). */
const FORM_COOKIE = 'cms_login_form';
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  // Nothing but the page itself; no framing, so the form cannot be overlaid on another site.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
};

interface LoginQuery {
  origin?: string;
  projectId?: string;
}

interface LoginForm {
  origin?: string;
  projectId?: string;
  csrf?: string;
  email?: string;
  password?: string;
}

/**
 * The sign-in page Sanity Studio sends editors to (its auth provider's URL): email and password,
 * then back to Studio with a session token in the URL fragment (`#token=...`), as Studio's token
 * sign-in expects, and the same session as a cookie for images. It only returns to this service's
 * own origin or to one a project allows with credentials, so no other site can collect a token.
 */
export const loginPageRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))));
  });

  async function returnUrl(request: FastifyRequest, origin: string | undefined): Promise<string> {
    const own = `${request.protocol}://${request.host}`;
    if (origin === undefined || origin === '') return `${own}/`;
    let target: URL;
    try {
      target = new URL(origin, own);
    } catch {
      throw badRequest('origin must be the URL to return to after signing in');
    }
    if (normalizeOrigin(target.origin) === undefined) throw badRequest('origin must be an http or https URL to return to after signing in');
    const allowed = target.origin === own || (await services.cors.policyFor(target.origin))?.credentials === true;
    if (!allowed) throw badRequest(`This sign-in page returns only to ${own} or to an origin a project allows with credentials, not to ${target.origin}`);
    target.hash = '';
    return target.toString();
  }

  function page(reply: FastifyReply, status: number, view: { origin: string; projectId: string; email: string; error?: string }) {
    const csrf = randomToken(24);
    reply.setCookie(FORM_COOKIE, csrf, { path: '/login', httpOnly: true, sameSite: 'strict', secure: reply.request.protocol === 'https', maxAge: 3600 });
    return reply.code(status).headers(PAGE_HEADERS).send(loginPageHtml({ ...view, csrf, error: view.error }));
  }

  app.get<{ Querystring: LoginQuery }>(
    '/login',
    {
      config: { access: 'public', rateLimitGroup: 'auth' },
      schema: {
        tags: ['auth'],
        summary: 'The sign-in page (Sanity Studio: `auth.providers[].url`); origin is where to return',
        querystring: {
          type: 'object',
          properties: { origin: { type: 'string', maxLength: 2048 }, projectId: { type: 'string', maxLength: 200 }, withSid: { type: 'string' }, type: { type: 'string' } },
        },
      },
    },
    async (request, reply) => {
      await returnUrl(request, request.query.origin);
      return page(reply, 200, { origin: request.query.origin ?? '', projectId: request.query.projectId ?? '', email: '' });
    },
  );

  app.post<{ Body: LoginForm }>(
    '/login',
    { config: { access: 'public', rateLimitGroup: 'auth' }, schema: { tags: ['auth'], summary: 'Signs in from the sign-in page and returns to origin with #token=<session token>' } },
    async (request, reply) => {
      const form = request.body ?? {};
      const view = { origin: text(form.origin), projectId: text(form.projectId), email: text(form.email) };
      const expected = request.cookies[FORM_COOKIE];
      if (expected === undefined || !constantTimeEqual(expected, text(form.csrf))) {
        return page(reply, 400, { ...view, error: 'The form expired: please sign in again.' });
      }
      const target = await returnUrl(request, view.origin);
      let session;
      try {
        session = await services.auth.startBrowserSession(view.email, text(form.password));
      } catch (error) {
        if (error instanceof AppError && error.statusCode === 401) return page(reply, 401, { ...view, error: 'Wrong email or password.' });
        throw error;
      }
      setSessionCookie(request, reply, session.token, services.config.sessionExpiresInSeconds);
      reply.clearCookie(FORM_COOKIE, { path: '/login' });
      return reply.redirect(`${target}#token=${session.token}`, 303);
    },
  );
};

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
