import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The studio project of this repository (studio/), with its own package.json and lockfile. */
export const STUDIO_PROJECT_DIR = fileURLToPath(new URL('../../studio/', import.meta.url));

export interface StudioTarget {
  readonly projectId: string;
  readonly dataset: string;
}

/** Folders of studio/ that are not the studio's sources. */
const NOT_SOURCES = new Set(['node_modules', 'dist', '.sanity', '.build', 'versions']);

/**
 * Other Studio versions: studio/versions/<name>/ holds only a package.json and lockfile. Each is
 * installed and built in studio/.build/<name>/ (gitignored) with studio/'s own configuration and
 * schema copied beside it, so every version has a node_modules of its own and one set of sources.
 */
export const STUDIO_VERSIONS_DIR = join(STUDIO_PROJECT_DIR, 'versions');

/**
 * The folder to install and build Studio version `name` in (a folder of studio/versions/), with
 * studio/'s sources and that version's package files copied in; without a name, studio/ itself.
 */
export function studioVersionDir(name?: string): string {
  if (!name) return STUDIO_PROJECT_DIR;
  const pins = join(STUDIO_VERSIONS_DIR, name);
  if (!/^[\w.-]+$/.test(name) || !existsSync(join(pins, 'package.json'))) {
    const known = existsSync(STUDIO_VERSIONS_DIR) ? readdirSync(STUDIO_VERSIONS_DIR).join(', ') : 'none';
    throw new Error(`No Studio version "${name}" in studio/versions/ (there: ${known})`);
  }
  const dir = join(STUDIO_PROJECT_DIR, '.build', name);
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(STUDIO_PROJECT_DIR, { withFileTypes: true })) {
    if (NOT_SOURCES.has(entry.name) || entry.name.startsWith('.') || /^package(-lock)?\.json$/.test(entry.name)) continue;
    rmSync(join(dir, entry.name), { recursive: true, force: true });
    cpSync(join(STUDIO_PROJECT_DIR, entry.name), join(dir, entry.name), { recursive: true });
  }
  for (const file of ['package.json', 'package-lock.json']) {
    if (existsSync(join(pins, file))) cpSync(join(pins, file), join(dir, file));
  }
  return dir;
}

/** What a build was made from, kept beside it: the same inputs need no new build (30 s and more). */
const STAMP_FILE = '.cms-build.json';

type Out = (line: string) => void;

/**
 * Installs the studio's dependencies (only inside studio/: the service's own install stays lean)
 * unless they are there, and builds it into studio/dist for this project and dataset unless the
 * build there was made from the same sources and settings. Returns the build's folder.
 */
export async function prepareStudio(target: StudioTarget, options: { rebuild?: boolean; out: Out }, dir: string = STUDIO_PROJECT_DIR): Promise<string> {
  const { out } = options;
  await installStudio(dir, out);
  const outDir = join(dir, 'dist');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SANITY_STUDIO_PROJECT_ID: target.projectId,
    SANITY_STUDIO_DATASET: target.dataset,
    // The Sanity CLI would try to reach Sanity for telemetry; nothing is sent from here.
    DO_NOT_TRACK: '1',
  };
  const stamp = JSON.stringify({ ...target, apiOrigin: env.SANITY_STUDIO_API_ORIGIN ?? null, sources: sourcesHash(dir) });
  if (!options.rebuild && readStamp(join(outDir, STAMP_FILE)) === stamp && existsSync(join(outDir, 'index.html'))) {
    out(`Studio build in ${outDir} is up to date (project ${target.projectId}, dataset ${target.dataset})`);
    return outDir;
  }
  out(`Building the studio for project ${target.projectId}, dataset ${target.dataset} (about a minute)...`);
  await run('npm', ['run', 'build'], dir, env);
  writeFileSync(join(outDir, STAMP_FILE), stamp);
  return outDir;
}

/** The lockfile an install was made from, kept in node_modules: a changed lockfile installs again. */
const INSTALL_STAMP = join('node_modules', '.cms-lockfile.sha256');

/** Installs the dependencies of the studio in `dir` (npm ci) unless they match its lockfile. */
export async function installStudio(dir: string, out: Out): Promise<void> {
  const lock = createHash('sha256').update(readFileSync(join(dir, 'package-lock.json'))).digest('hex');
  if (readStamp(join(dir, INSTALL_STAMP)) === lock) return;
  out(`Installing the studio's dependencies in ${dir} (npm ci, a minute or two the first time)...`);
  await run('npm', ['ci', '--no-audit', '--no-fund'], dir, process.env);
  writeFileSync(join(dir, INSTALL_STAMP), lock);
}

function readStamp(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
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
