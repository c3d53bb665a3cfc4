import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobCache } from '../../src/assets/blob-cache.ts';
import { AppError } from '../../src/errors.ts';

describe('the local cache of blob files', () => {
  const roots: string[] = [];
  const newCache = async (maxBytes: number, root = mkdtempSync(join(tmpdir(), 'blob-cache-'))) => {
    roots.push(root);
    const cache = new BlobCache(root, maxBytes);
    await cache.open();
    return { cache, root };
  };
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** A fetch that writes `bytes` bytes and counts its calls. */
  const source = (bytes: number) => {
    const fetch = Object.assign(
      async (target: string) => {
        fetch.calls++;
        await writeFile(target, Buffer.alloc(bytes, 1));
        return true;
      },
      { calls: 0 },
    );
    return fetch;
  };

  it('fetches a missing blob once, also for concurrent requests, then serves it from disk', async () => {
    const { cache } = await newCache(1000);
    const fetch = source(10);
    const paths = await Promise.all([cache.get('p/d/a.png', fetch), cache.get('p/d/a.png', fetch), cache.get('p/d/a.png', fetch)]);
    expect(new Set(paths).size).toBe(1);
    expect(fetch.calls).toBe(1);
    expect((await readFile(paths[0]!)).length).toBe(10);
    await cache.get('p/d/a.png', fetch);
    expect(fetch.calls).toBe(1);
  });

  it('answers undefined for a blob the source does not have, and caches nothing', async () => {
    const { cache } = await newCache(1000);
    expect(await cache.get('p/d/none.png', async () => false)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used files beyond its size, never the one just asked for', async () => {
    const { cache } = await newCache(25);
    const fetch = source(10);
    const a = (await cache.get('p/d/a', fetch))!;
    const b = (await cache.get('p/d/b', fetch))!;
    await cache.get('p/d/a', fetch); // a is now more recent than b
    await cache.get('p/d/c', fetch); // 30 bytes: b goes
    expect(cache.size).toBe(20);
    await expect(readFile(b)).rejects.toThrow();
    expect((await readFile(a)).length).toBe(10);
    const big = await cache.get('p/d/big', source(100)); // alone over the limit: kept, everything else goes
    expect((await readFile(big!)).length).toBe(100);
    expect(cache.size).toBe(100);
  });

  it('fetches again a file removed behind its back', async () => {
    const { cache } = await newCache(1000);
    const fetch = source(5);
    const path = (await cache.get('p/d/a', fetch))!;
    await rm(path);
    expect(await cache.get('p/d/a', fetch)).toBe(path);
    expect(fetch.calls).toBe(2);
  });

  it('takes in an uploaded file without copying, and counts files an earlier run left', async () => {
    const { cache, root } = await newCache(1000);
    const staging = await cache.stagingPath();
    await writeFile(staging, 'uploaded');
    await cache.admit('p/d/up.txt', staging);
    await expect(readFile(staging)).rejects.toThrow();
    const fetch = source(1);
    expect(await readFile((await cache.get('p/d/up.txt', fetch))!, 'utf8')).toBe('uploaded');
    expect(fetch.calls).toBe(0);
    const reopened = new BlobCache(root, 1000);
    await reopened.open();
    expect(reopened.size).toBe('uploaded'.length);
  });

  it.each(['../x', 'a/../../x', '/etc/passwd', 'a//b', '.staging/x', 'a\\..\\x', ''])('refuses the key %j', async (key) => {
    const { cache } = await newCache(1000);
    await expect(cache.get(key, source(1))).rejects.toThrow(AppError);
  });
});
