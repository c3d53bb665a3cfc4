import { pathToFileURL } from 'node:url';
import { prepareStudio } from '../../src/cli/studio-build.ts';

/** The project and dataset the journey's studio is built for (also studio/'s own defaults). */
export const JOURNEY_PROJECT = 'blog';
export const JOURNEY_DATASET = 'production';

/**
 * Installs (if missing) and builds studio/ for the journey's project, as `cms studio` does; a build
 * made from the same sources and settings is kept. Returns the build's folder (STUDIO_DIR).
 */
export function ensureJourneyStudio(out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<string> {
  return prepareStudio({ projectId: JOURNEY_PROJECT, dataset: JOURNEY_DATASET }, { out });
}

// `node test/browser/studio-build.ts`: .ci/run builds before the test, so its time shows apart.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await ensureJourneyStudio();
