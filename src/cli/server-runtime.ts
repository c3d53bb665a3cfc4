// The Node settings a server process runs with. V8 sizes its heap by the machine (about a quarter
// of its memory for the old generation, up to 64 MB per half of the young one) and lets it grow
// to that before collecting in earnest, and glibc keeps a malloc arena per thread: a server
// that had imported 100,000 documents held 540 MB, most of it garbage or free pages never given
// back. `cms serve` and `cms studio` therefore start again, once, in the same process (execve:
// the pid stays, for supervisors and signals), with a heap bound (HEAP_LIMIT_MB) and fewer arenas.
// It also keeps Node's compile cache (COMPILE_CACHE_DIR): a thread that strips the types of
// TypeScript sources loads a WebAssembly compiler and keeps its memory (tens of MB per thread:
// docs/decisions.md, Memory); with the stripped code cached on disk, none loads it again.
import { flushCompileCache } from 'node:module';
import type { Config } from '../config.ts';

/** Set in the environment of the process started again, so that it does not start again. */
const RELAUNCHED = 'CMS_RUNTIME_SET';
/** Each half of V8's young generation (the default grows to 64 MB under an import's allocations). */
const SEMI_SPACE_MB = 16;
const MALLOC_ARENAS = '2';

/** The V8 flags for a heap bound, unless the operator gave their own in NODE_OPTIONS or on the command line. */
function heapFlags(heapLimitMb: number, given: readonly string[]): string[] {
  if (heapLimitMb === 0) return [];
  const flags: string[] = [];
  if (!given.some((flag) => flag.startsWith('--max-old-space-size'))) flags.push(`--max-old-space-size=${heapLimitMb}`);
  if (!given.some((flag) => flag.startsWith('--max-semi-space-size'))) flags.push(`--max-semi-space-size=${SEMI_SPACE_MB}`);
  return flags;
}

/**
 * Starts this command again with the runtime settings, unless it already runs with them or the
 * platform cannot replace a process (process.execve is on Linux and macOS). Returns only when
 * nothing is to be done.
 */
export function relaunchWithRuntimeSettings({ heapLimitMb, compileCacheDir }: Pick<Config, 'heapLimitMb' | 'compileCacheDir'>): void {
  if (process.env[RELAUNCHED] === '1' || typeof process.execve !== 'function') return;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const flags = heapFlags(heapLimitMb, given);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    [RELAUNCHED]: '1',
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? MALLOC_ARENAS,
  };
  if (compileCacheDir !== undefined) env.NODE_COMPILE_CACHE ??= compileCacheDir;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)], env);
}

/**
 * Writes what the compile cache holds now. Node writes it at a clean exit, which a server killed
 * (SIGKILL, a crash) never reaches: called once the server has loaded its modules, so that the
 * next start, and a query worker started later, find them.
 */
export function saveCompiledCode(): void {
  flushCompileCache();
}
