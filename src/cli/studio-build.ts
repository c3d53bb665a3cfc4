import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The studio project of this repository (studio/), with its own package.json and lockfile. */
export const STUDIO_PROJECT_DIR = fileURLToPath(new URL('../../studio/', import.meta.url));

export interface StudioTarget {
  readonly projectId: string;
  readonly dataset: string;
}

/** What a build was made from, kept beside it: the same inputs need no new build (30 s and more). */
const STAMP_FILE = '.cms-build.json';
/** Folders of studio/ that are not the studio's sources. */
const NOT_SOURCES = new Set(['node_modules', 'dist', '.sanity']);

type Out = (line: string) => void;

/**
 * Installs the studio's dependencies (only inside studio/: the service's own install stays lean)
 * unless they are there, and builds it into studio/dist for this project and dataset unless the
 * build there was made from the same sources and settings. Returns the build's folder.
 */
export async function prepareStudio(target: StudioTarget, options: { rebuild?: boolean; out: Out }, dir: string = STUDIO_PROJECT_DIR): Promise<string> {
  const { out } = options;
  if (!existsSync(join(dir, 'node_modules', 'sanity', 'package.json'))) {
    out('Installing the studio\'s dependencies in studio/ (npm ci, a minute or two the first time)...');
    await run('npm', ['ci', '--no-audit', '--no-fund'], dir, process.env);
  }
  const outDir = join(dir, 'dist');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SANITY_STUDIO_PROJECT_ID: target.projectId,
    SANITY_STUDIO_DATASET: target.dataset,
    // The Sanity CLI would try to reach Sanity for telemetry; nothing is sent from here.
    DO_NOT_TRACK: '1',
  };
  const stamp = JSON.stringify({ ...target, apiOrigin: env.SANITY_STUDIO_API_ORIGIN ?? null, sources: sourcesHash(dir) });
  if (!options.rebuild && readStamp(outDir) === stamp && existsSync(join(outDir, 'index.html'))) {
    out(`Studio build in ${outDir} is up to date (project ${target.projectId}, dataset ${target.dataset})`);
    return outDir;
  }
  out(`Building the studio for project ${target.projectId}, dataset ${target.dataset} (about a minute)...`);
  await run('npm', ['run', 'build'], dir, env);
  writeFileSync(join(outDir, STAMP_FILE), stamp);
  return outDir;
}

function readStamp(outDir: string): string | undefined {
  try {
    return readFileSync(join(outDir, STAMP_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

/** A hash of every source file of the studio (configuration, schema, lockfile), by path and content. */
function sourcesHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (NOT_SOURCES.has(entry.name)) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(relative(dir, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex');
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    // npm is npm.cmd on Windows, which only a shell starts.
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} in ${cwd} failed (exit ${code})`))));
  });
}
