import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { MAX_VARIANT_SIDE, limitTransform, outputSize } from '../../src/assets/transform-limits.ts';
import { RenderSlots } from '../../src/assets/render-slots.ts';

const limits = { maxInputPixels: 70_000_000, maxOutputPixels: 12_000_000 };
const photo = { width: 6000, height: 4000 };

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('limitTransform', () => {
  it('passes a transform within the limits unchanged', () => {
    const transform = { width: 400, height: 300, fit: 'cover' as const, format: 'webp' as const };
    expect(limitTransform(photo, transform, limits)).toBe(transform);
  });

  it('refuses an image over maxInputPixels, whatever the transform asks', () => {
    const error = refusal(() => limitTransform({ width: 10_000, height: 10_000 }, { width: 10 }, limits));
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain('100 MP; at most 70 MP');
  });

  it('refuses a variant over maxOutputPixels, counting the side that follows the aspect ratio', () => {
    expect(refusal(() => limitTransform(photo, { width: 4096, height: 4095, fit: 'fill' }, limits)).message).toContain('4096x4095 pixels (16.8 MP)');
    // 4096 wide makes a 3:2 photo 2731 high (11.2 MP, within); a 3000x9000 one stays as it is (27 MP, not).
    expect(limitTransform(photo, { width: 4096 }, limits)).toEqual({ width: 4096 });
    expect(refusal(() => limitTransform({ width: 3000, height: 9000 }, { width: 4096 }, limits)).message).toContain('3000x9000');
  });

  it('refuses a rect that leaves the image, and measures the variant from the rect turned by rotate', () => {
    for (const rect of [[0, 0, 6001, 1], [5999, 0, 2, 1], [0, 3999, 1, 2], [0, 0, 1e308, 1]] as [number, number, number, number][]) {
      expect(refusal(() => limitTransform(photo, { rect }, limits)).message).toContain('6000x4000');
    }
    expect(outputSize({ width: 100, height: 50 }, { width: 200 })).toEqual({ width: 100, height: 50 });
    expect(limitTransform(photo, { rect: [0, 0, 4000, 100], rotate: 90, height: 4000 }, limits)).toMatchObject({ height: 4000 });
    expect(() => limitTransform(photo, { rect: [0, 0, 4000, 4000], rotate: 90, width: 4000, height: 4000 }, limits)).toThrow(AppError);
  });

  it('fits a variant that asks for no size into the limits, keeping its aspect ratio', () => {
    const fitted = limitTransform(photo, { format: 'webp' }, limits);
    const size = outputSize(photo, fitted);
    expect(size.width * size.height).toBeLessThanOrEqual(12_000_000);
    expect(size.width * size.height).toBeGreaterThan(11_990_000);
    expect(size.width / size.height).toBeCloseTo(1.5, 3);
    expect(limitTransform({ width: 3000, height: 2000 }, { format: 'webp' }, limits)).toEqual({ format: 'webp' });
  });

  it('fits a very narrow image by its long side, never past MAX_VARIANT_SIDE', () => {
    const strip = { width: 1, height: 60_000_000 };
    const fitted = limitTransform(strip, { blur: 1 }, limits);
    expect(fitted).toEqual({ blur: 1, height: MAX_VARIANT_SIDE });
    expect(outputSize(strip, fitted)).toEqual({ width: 1, height: MAX_VARIANT_SIDE });
  });
});

describe('RenderSlots', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A render that runs until the test lets it finish. */
  function gate() {
    let open!: () => void;
    const done = new Promise<void>((resolve) => (open = resolve));
    return { open, task: () => done };
  }

  it('runs up to its concurrency, then queues first come first served', async () => {
    const slots = new RenderSlots(1, 2, 30_000);
    const order: string[] = [];
    const first = gate();
    const running = slots.run(async () => {
      order.push('a');
      await first.task();
    });
    const second = slots.run(async () => order.push('b'));
    const third = slots.run(async () => order.push('c'));
    await Promise.resolve();
    expect(order).toEqual(['a']);
    first.open();
    await Promise.all([running, second, third]);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('refuses with 429 and Retry-After when the queue is full', async () => {
    const slots = new RenderSlots(1, 1, 30_000);
    const first = gate();
    const running = slots.run(first.task);
    const queued = slots.run(async () => 'queued');
    const refused = await slots.run(async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ statusCode: 429, headers: { 'Retry-After': '30' } });
    first.open();
    await running;
    expect(await queued).toBe('queued');
  });

  it('refuses a render that waited waitMs, and keeps its place for the next', async () => {
    const slots = new RenderSlots(1, 5, 2_000);
    const first = gate();
    const running = slots.run(first.task);
    const waiting = slots.run(async () => 'late').catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await waiting).toMatchObject({ statusCode: 429, headers: { 'Retry-After': '2' } });
    first.open();
    await running;
    expect(await slots.run(async () => 'next')).toBe('next');
  });

  it('frees the place of a render that failed', async () => {
    const slots = new RenderSlots(1, 0, 1_000);
    await expect(slots.run(() => Promise.reject(new Error('broken file')))).rejects.toThrow('broken file');
    expect(await slots.run(async () => 'ok')).toBe('ok');
  });
});
