import type { TestApp } from './test-app.ts';

/** Uploads a file as a browser form would (multipart, field `file`) to the dataset's assets. */
export function postAsset(app: TestApp, token: string, projectSlug: string, bytes: Buffer, filename: string, dataset = 'production'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), filename);
  return fetch(`${app.url}/api/v1/assets/${dataset}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-project': projectSlug }, body: form });
}
