import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectErrorBody, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { loadSchema } from '../../src/schema/load-schema.ts';
import { ConfigError } from '../../src/config.ts';

const TYPES = [
  {
    name: 'post',
    title: 'Post',
    type: 'document',
    fields: [
      { name: 'title', type: 'string', title: 'Title' },
      { name: 'author', type: 'reference', to: [{ type: 'author' }] },
      { name: 'body', type: 'array', of: [{ type: 'block' }] },
    ],
  },
  { name: 'author', type: 'document', fields: [{ name: 'name', type: 'string' }] },
  { name: 'seo', type: 'object', fields: [{ name: 'description', type: 'text' }] },
];

function schemaFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'schema-')), 'schema.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe(`schema (${testEngine})`, () => {
  describe('with SCHEMA_PATH', () => {
    const app = useTestApp({ SCHEMA_PATH: schemaFile(TYPES) });

    it('serves the types to anyone who can see the project', async () => {
      const project = await createProject(app, app.admin);
      const viewer = await createUser(app, app.admin, 'viewer');
      for (const token of [app.admin, viewer.token, (await createApiToken(app, app.admin, project.slug)).token]) {
        const response = await app.request('GET', `/api/v1/schema/${project.slug}`, { token });
        expect(response).toMatchObject({ status: 200, body: { types: TYPES } });
      }
      expectErrorBody(await app.request('GET', '/api/v1/schema/no-such-project', { token: app.admin }), 404);
      expectErrorBody(await app.request('GET', `/api/v1/schema/${project.slug}`), 401);
    });
  });

  it('has no route without SCHEMA_PATH', async () => {
    const app = await startTestApp();
    try {
      const project = await createProject(app, await app.login());
      expectErrorBody(await app.request('GET', `/api/v1/schema/${project.slug}`, { token: await app.login() }), 404);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['not json', 'cannot be read as JSON'],
    [{ types: [] }, 'array'],
    [[{ name: 'x', type: 'thing', fields: [] }], 'type must be'],
    [[{ name: 'x', type: 'document' }], 'fields must be an array'],
    [[{ type: 'document', fields: [] }], 'name'],
    [[{ name: 'x', type: 'document', fields: [{ name: 'a' }] }], 'fields[0].type'],
    [[{ name: 'x', type: 'object', fields: [] }, { name: 'x', type: 'object', fields: [] }], 'defined twice'],
  ])('refuses to start on a bad schema file (%j)', (content, message) => {
    expect(() => loadSchema(schemaFile(content))).toThrow(ConfigError);
    expect(() => loadSchema(schemaFile(content))).toThrow(message);
  });

  it('names a missing file', () => {
    expect(() => loadSchema('/nonexistent/schema.json')).toThrow('/nonexistent/schema.json');
  });
});
