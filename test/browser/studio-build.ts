import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installStudio, prepareStudio, studioVersionDir } from '../../src/cli/studio-build.ts';

/** The project and dataset the journey's studio is built for (also studio/'s own defaults). */
export const JOURNEY_PROJECT = 'blog';
export const JOURNEY_DATASET = 'production';
/** STUDIO_VERSION names a folder of studio/versions/ (`4`, `6`): the journey runs that Studio; unset, studio/'s own. */
export const JOURNEY_STUDIO_VERSION = process.env.STUDIO_VERSION || undefined;

/**
 * Installs (if missing) and builds the journey's studio for its project, as `cms studio` does; a
 * build made from the same sources and settings is kept. Returns the build's folder (STUDIO_DIR)
 * and the `sanity` version it was built with.
 */
export async function ensureJourneyStudio(out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<{ dir: string; version: string }> {
  const project = studioVersionDir(JOURNEY_STUDIO_VERSION);
  const dir = await prepareStudio({ projectId: JOURNEY_PROJECT, dataset: JOURNEY_DATASET }, { out }, project);
  const { version } = JSON.parse(readFileSync(join(project, 'node_modules', 'sanity', 'package.json'), 'utf8')) as { version: string };
  return { dir, version };
}

// `node test/browser/studio-build.ts [install]`: .ci/run installs, then builds, before the test, so
// each one's time shows apart.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (process.argv[2] === 'install') await installStudio(studioVersionDir(JOURNEY_STUDIO_VERSION), out);
  else await ensureJourneyStudio(out);
}
