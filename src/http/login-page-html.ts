/** The login page's markup: one form, no script, no resource from elsewhere. */
export interface LoginPageView {
  origin: string;
  projectId: string;
  csrf: string;
  email: string;
  error: string | undefined;
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function loginPageHtml(view: LoginPageView): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; background: #f3f4f6; margin: 0; display: grid; place-items: center; min-height: 100vh; }
  form { background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.15); width: min(22rem, 90vw); }
  h1 { font-size: 1.25rem; margin: 0 0 1rem; }
  label { display: block; margin-top: .75rem; font-size: .875rem; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .5rem; margin-top: .25rem; font: inherit; }
  button { margin-top: 1.25rem; width: 100%; padding: .6rem; font: inherit; background: #2563eb; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }
  .error { color: #b91c1c; margin: 0 0 .5rem; }
</style>
</head>
<body>
<form method="post" action="/login">
  <h1>Sign in</h1>
  ${view.error ? `<p class="error" role="alert">${escape(view.error)}</p>` : ''}
  <input type="hidden" name="origin" value="${escape(view.origin)}">
  <input type="hidden" name="projectId" value="${escape(view.projectId)}">
  <input type="hidden" name="csrf" value="${escape(view.csrf)}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${escape(view.email)}" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
</body>
</html>
`;
}
