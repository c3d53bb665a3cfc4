import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../helpers/server-process.ts';
import { eventually } from '../helpers/eventually.ts';
import { loadConfig } from '../../src/config.ts';

/** The command line and environment of a running process (Linux's /proc). */
function processOf(pid: number): { args: string[]; env: Record<string, string> } {
  const split = (file: string) => readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter(Boolean);
  return { args: split('cmdline'), env: Object.fromEntries(split('environ').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])) };
}

// `cms serve` starts again in the same process with a bounded heap, two malloc arenas and Node's
// compile cache (cli/server-runtime.ts), so a user's `npm start` gets them without flags of their own.
describe.runIf(process.platform === 'linux')('the runtime settings of cms serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cms-runtime-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The files under a directory, at any depth (none if it does not exist). */
  const filesUnder = (path: string): string[] => (existsSync(path) ? readdirSync(path, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name) : []);

  /**
   * Starts `cms serve`; with `cachedAtLeast`, waits until its compile cache holds that many files
   * (the server writes them just after it reports that it listens).
   */
  async function serve(env: Record<string, string>, cachedAtLeast = 0) {
    const server = await startServerProcess({ DATA_DIR: join(dir, String(Math.random()).slice(2)), ...env });
    try {
      // Same pid: supervisors and signals see one process.
      const running = processOf(server.child.pid!);
      const health = (await server.request('GET', '/api/v1/health')).status;
      const countCached = () => filesUnder(running.env.NODE_COMPILE_CACHE ?? '').length;
      const cached = cachedAtLeast > 0 ? await eventually(() => (countCached() >= cachedAtLeast ? countCached() : undefined)) : countCached();
      return { ...running, cached, health };
    } finally {
      await server.kill();
    }
  }

  it('runs with HEAP_LIMIT_MB (512) as its old generation, a 16 MB semi-space and MALLOC_ARENA_MAX=2', async () => {
    const { args, env, health } = await serve({});
    expect(health).toBe(200);
    expect(args).toEqual(expect.arrayContaining(['--max-old-space-size=512', '--max-semi-space-size=16']));
    expect(env.MALLOC_ARENA_MAX).toBe('2');
  });

  it('keeps Node\'s compile cache in COMPILE_CACHE_DIR, written as soon as the server has started', async () => {
    const { env } = await serve({});
    expect(env.NODE_COMPILE_CACHE).toBe(loadConfig({}).compileCacheDir);
    // Only the process started again keeps it; the server is killed (SIGKILL) without an exit of its own.
    const own = join(dir, 'compile-cache');
    const started = await serve({ COMPILE_CACHE_DIR: own }, 50);
    expect(started.env.NODE_COMPILE_CACHE).toBe(own);
    expect(started.cached).toBeGreaterThanOrEqual(50);
    const off = await serve({ COMPILE_CACHE_DIR: 'off' });
    expect(off.env.NODE_COMPILE_CACHE).toBeUndefined();
  });

  it("keeps the operator's own heap flags and arenas, and Node's own sizing with HEAP_LIMIT_MB=0", async () => {
    const own = await serve({ NODE_OPTIONS: '--max-old-space-size=300', MALLOC_ARENA_MAX: '4', HEAP_LIMIT_MB: '256' });
    expect(own.args.filter((arg) => arg.startsWith('--max-old-space-size'))).toEqual([]);
    expect(own.args).toContain('--max-semi-space-size=16');
    expect(own.env.MALLOC_ARENA_MAX).toBe('4');
    const unbounded = await serve({ HEAP_LIMIT_MB: '0' });
    expect(unbounded.args.filter((arg) => arg.startsWith('--max-'))).toEqual([]);
  });
});
