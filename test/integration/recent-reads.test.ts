import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';
import { createProject, createUser } from '../helpers/fixtures.ts';
import { dataClient } from '../helpers/content.ts';
import { RECENT_READ_MS } from '../../src/access/recent-reads.ts';

// The signed-in user and the named project are kept for requests for at most RECENT_READ_MS
// (src/access/recent-reads.ts): two instances on one database, a change made through one.
/** Two instances on one database, the admin signed in, and a project of its own. */
async function withTwoInstances(run: (one: TestApp, two: TestApp, admin: string, project: string) => Promise<void>): Promise<void> {
  const db = createTestDatabase();
  const one = await startTestApp({}, { db });
  const two = await startTestApp({}, { db });
  try {
    const admin = await one.login();
    await run(one, two, admin, (await createProject(one, admin, ['production'])).slug);
  } finally {
    await two.close({ keepDatabase: true });
    await one.close();
  }
}

describe(`a change of rights reaches every instance within a second (${testEngine})`, () => {
  it('applies a role change at once where it was made, and on another instance once its reads are older than RECENT_READ_MS', async () => {
    await withTwoInstances(async (one, two, admin, project) => {
      const editor = await createUser(one, admin, 'editor');
      const token = await two.login(editor.email, editor.password);
      const write = (app: TestApp) => dataClient(app, token, project).mutate([{ createOrReplace: { _id: 'note', _type: 'note', at: Date.now() } }]);
      // Both instances have read the editor as an editor.
      expect((await write(one)).status).toBe(200);
      expect((await write(two)).status).toBe(200);

      const changed = await one.request('PUT', `/api/v1/users/${editor.id}`, { token: admin, body: { role: 'viewer' } });
      expect(changed.status).toBe(200);
      expect((await write(one)).status).toBe(403);
      await sleep(RECENT_READ_MS + 50);
      expect((await write(two)).status).toBe(403);
    });
  });

  it('applies a change of a project (its datasets) at once where it was made, and on another instance within RECENT_READ_MS', async () => {
    await withTwoInstances(async (one, two, admin, project) => {
      const query = (app: TestApp) => dataClient(app, admin, project, 'staging').query('count(*)');
      expect((await query(one)).status).toBe(404);
      expect((await query(two)).status).toBe(404);

      const changed = await one.request('PUT', `/api/v1/projects/${project}`, { token: admin, body: { datasets: ['production', 'staging'] } });
      expect(changed.status).toBe(200);
      expect((await query(one)).status).toBe(200);
      await sleep(RECENT_READ_MS + 50);
      expect((await query(two)).status).toBe(200);
    });
  });
});
