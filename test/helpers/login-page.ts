import type { TestApp } from './test-app.ts';

export interface SignIn {
  status: number;
  location: string | null;
  setCookies: string[];
  body: string;
}

/**
 * Signs in through the login page as a browser does: GET the form (its anti-forgery cookie and
 * field), then POST it. Returns the POST's answer without following its redirect.
 */
export async function signInThroughPage(app: TestApp, email: string, password: string, origin: string, projectId = ''): Promise<SignIn> {
  const query = new URLSearchParams({ origin, projectId, withSid: 'true' });
  const form = await fetch(`${app.url}/login?${query}`);
  const html = await form.text();
  if (form.status !== 200) return { status: form.status, location: null, setCookies: form.headers.getSetCookie(), body: html };
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const formCookie = form.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
  const answer = await fetch(`${app.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie },
    body: new URLSearchParams({ origin, projectId, csrf, email, password }).toString(),
  });
  return { status: answer.status, location: answer.headers.get('location'), setCookies: answer.headers.getSetCookie(), body: await answer.text() };
}

/** The session token a successful sign-in returned in its redirect's fragment. */
export function tokenOf(signIn: SignIn): string {
  const token = /#token=([^&]+)$/.exec(signIn.location ?? '')?.[1];
  if (!token) throw new Error(`no token in the sign-in's redirect: ${signIn.status} ${signIn.location} ${signIn.body.slice(0, 200)}`);
  return token;
}
