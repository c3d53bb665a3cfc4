import type { TestApp } from './test-app.ts';

let counter = 0;

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

/** Creates a user through the API (as admin) and signs it in. */
export async function createUser(
  app: TestApp,
  adminToken: string,
  role: 'admin' | 'editor' | 'viewer',
  extra: { project_access?: { projectId: string; role: string }[] } = {},
): Promise<TestUser> {
  counter += 1;
  const email = `${role}-${counter}-${Date.now()}@example.com`;
  const password = `password-${counter}-long`;
  const created = await app.request<{ id: string }>('POST', '/api/v1/users', {
    token: adminToken,
    body: { email, name: `${role} ${counter}`, password, role },
  });
  if (created.status !== 201) throw new Error(`create user: ${created.status} ${JSON.stringify(created.body)}`);
  if (extra.project_access) {
    const updated = await app.request('PUT', `/api/v1/users/${created.body.id}`, {
      token: adminToken,
      body: { project_access: extra.project_access },
    });
    if (updated.status !== 200) throw new Error(`set project_access: ${updated.status} ${JSON.stringify(updated.body)}`);
  }
  return { id: created.body.id, email, password, token: await app.login(email, password) };
}

export interface TestProject {
  id: string;
  slug: string;
  datasets: string[];
}

export async function createProject(app: TestApp, adminToken: string, datasets?: string[]): Promise<TestProject> {
  counter += 1;
  const slug = `project-${counter}-${Date.now()}`;
  const response = await app.request<TestProject>('POST', '/api/v1/projects', {
    token: adminToken,
    body: { name: `Project ${counter}`, slug, ...(datasets ? { datasets } : {}) },
  });
  if (response.status !== 201) throw new Error(`create project: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function createApiToken(
  app: TestApp,
  adminToken: string,
  project: string,
  body: { name?: string; permissions?: string[]; dataset?: string | null } = {},
): Promise<{ id: string; token: string }> {
  const response = await app.request<{ id: string; token: string }>('POST', `/api/v1/tokens/${project}`, {
    token: adminToken,
    body: { name: 'test token', ...body },
  });
  if (response.status !== 201) throw new Error(`create token: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}
