import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_DIMENSION, normalizeTransform, transformKey } from '../../src/assets/transform.ts';
import { paletteFromPixels } from '../../src/assets/palette.ts';
import { FilesystemBlobStore } from '../../src/assets/filesystem-blob-store.ts';
import { AppError } from '../../src/errors.ts';

describe('transform parameters', () => {
  it('serves the original without parameters', () => {
    expect(normalizeTransform({})).toBeUndefined();
    expect(normalizeTransform({ dpr: 2 })).toBeUndefined();
  });

  it('applies dpr, caps sides at MAX_DIMENSION and sets fit only for two sides', () => {
    expect(normalizeTransform({ w: 300, dpr: 2 })).toEqual({ width: 600 });
    expect(normalizeTransform({ w: 4000, h: 3000, dpr: 3 })).toEqual({ width: MAX_DIMENSION, height: MAX_DIMENSION, fit: 'cover' });
    expect(normalizeTransform({ w: 10, h: 10, fit: 'fill' })).toEqual({ width: 10, height: 10, fit: 'fill' });
    expect(normalizeTransform({ w: 10, fit: 'fill' })).toEqual({ width: 10 });
  });

  it('gives one key to requests that mean the same image', () => {
    const a = normalizeTransform({ w: 200, dpr: 2, format: 'webp', q: 80 })!;
    const b = normalizeTransform({ q: 80, format: 'webp', w: 400 })!;
    expect(transformKey(a)).toBe(transformKey(b));
    expect(transformKey(a)).not.toBe(transformKey(normalizeTransform({ w: 400, format: 'webp' })!));
  });
});

describe('palette', () => {
  const pixels = (...colours: [number, number, number, number, number][]) =>
    Buffer.from(colours.flatMap(([r, g, b, a, count]) => Array.from({ length: count }, () => [r, g, b, a]).flat()));

  it('picks the most common colour as dominant and a saturated mid-light one as vibrant', () => {
    expect(paletteFromPixels(pixels([250, 250, 250, 255, 80], [200, 20, 20, 255, 10], [90, 60, 60, 255, 10]))).toEqual({
      dominant: '#fafafa',
      vibrant: '#c81414',
    });
  });

  it('ignores transparent pixels and falls back to the most saturated colour', () => {
    expect(paletteFromPixels(pixels([0, 255, 0, 0, 100], [10, 10, 10, 255, 5], [40, 30, 30, 255, 1]))).toEqual({
      dominant: '#0a0a0a',
      vibrant: '#281e1e',
    });
    expect(paletteFromPixels(Buffer.alloc(0))).toEqual({ dominant: '#000000', vibrant: '#000000' });
  });
});

describe('filesystem blob store', () => {
  const root = mkdtempSync(join(tmpdir(), 'blobs-'));
  const store = new FilesystemBlobStore(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/\0b', '', '.staging/x', 'a\\..\\..\\x'])('refuses the key %j', (key) => {
    expect(() => store.resolveKey(key)).toThrow(AppError);
  });

  it('accepts keys below its root', () => {
    expect(store.resolveKey('p/production/a.png').endsWith(join('p', 'production', 'a.png'))).toBe(true);
  });
});
