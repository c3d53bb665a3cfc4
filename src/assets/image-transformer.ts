import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImageConfig } from '../config.ts';
import type { AssetRecord } from '../store/index.ts';
import { RenderSlots } from './render-slots.ts';
import { limitTransform, type Size } from './transform-limits.ts';
import { transformKey, type OutputFormat, type Transform } from './transform.ts';

export interface Variant {
  path: string;
  mimeType: string;
  etag: string;
}

const MIME: Record<OutputFormat, string> = { webp: 'image/webp', avif: 'image/avif', png: 'image/png', jpeg: 'image/jpeg' };
const EXTENSION: Record<OutputFormat, string> = { webp: 'webp', avif: 'avif', png: 'png', jpeg: 'jpg' };

/** Without an explicit format a variant keeps the original's, when sharp can write it; else PNG. */
function outputFormat(asset: AssetRecord, transform: Transform): OutputFormat {
  if (transform.format) return transform.format;
  const original = asset.metadata.format;
  return original === 'jpeg' || original === 'webp' || original === 'avif' || original === 'png' ? original : 'png';
}

/** The displayed size an image was recorded with at upload. */
function imageSize(asset: AssetRecord): Size {
  const { width, height } = asset.metadata;
  if (typeof width !== 'number' || typeof height !== 'number') throw new Error(`image asset ${asset.id} has no recorded size`);
  return { width, height };
}

/**
 * Transformed images, made with sharp and cached on disk by (asset, normalized parameters) under
 * `cacheRoot/<asset id>/`. Concurrent requests for the same new variant share one transform, and
 * new variants take a place among `limits.maxConcurrentRenders` (src/assets/render-slots.ts).
 * Images are turned upright by their EXIF orientation and never enlarged, except by fit `fill`.
 */
export class ImageTransformer {
  private readonly cacheRoot: string;
  private readonly limits: ImageConfig;
  private readonly slots: RenderSlots;
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(cacheRoot: string, limits: ImageConfig) {
    this.cacheRoot = cacheRoot;
    this.limits = limits;
    this.slots = new RenderSlots(limits.maxConcurrentRenders, limits.renderQueue, limits.renderQueueWaitMs);
  }

  /** The cached variant, rendered first if needed; 400 beyond the limits, 429 when no render place frees up. */
  async variant(asset: AssetRecord, originalPath: string, requested: Transform): Promise<Variant> {
    const transform = limitTransform(imageSize(asset), requested, this.limits);
    const format = outputFormat(asset, transform);
    const digest = createHash('sha1').update(`${asset.sha1}:${transformKey({ ...transform, format })}`).digest('hex');
    const directory = join(this.cacheRoot, asset.id);
    const path = join(directory, `${digest}.${EXTENSION[format]}`);
    const variant = { path, mimeType: MIME[format], etag: `"${digest}"` };
    if (await exists(path)) return variant;
    let pending = this.inFlight.get(path);
    if (!pending) {
      pending = this.slots.run(() => this.render(originalPath, directory, path, transform, format)).finally(() => this.inFlight.delete(path));
      this.inFlight.set(path, pending);
    }
    await pending;
    return variant;
  }

  /** Removes every cached variant of an asset. */
  async forget(assetId: string): Promise<void> {
    await rm(join(this.cacheRoot, assetId), { recursive: true, force: true });
  }

  private async render(source: string, directory: string, target: string, transform: Transform, format: OutputFormat): Promise<void> {
    await mkdir(directory, { recursive: true });
    // Upright first, so a rect is in the coordinates a viewer sees; sharp cuts it before flipping.
    let pipeline = sharp(source, this.inputOptions()).autoOrient();
    if (transform.rect) {
      const [left, top, width, height] = transform.rect;
      pipeline = pipeline.extract({ left, top, width, height });
    }
    if (transform.flip === 'h' || transform.flip === 'hv') pipeline = pipeline.flop();
    if (transform.flip === 'v' || transform.flip === 'hv') pipeline = pipeline.flip();
    // sharp would turn before cutting and flipping: the turn starts from their result.
    if (transform.rotate) pipeline = (await this.decoded(pipeline)).rotate(transform.rotate);
    if (transform.width !== undefined || transform.height !== undefined) {
      pipeline = pipeline.resize({
        width: transform.width,
        height: transform.height,
        fit: transform.fit ?? 'cover',
        position: transform.position ?? 'centre',
        // fill asks for exactly w x h, so it may enlarge; the output limits bound what that costs.
        withoutEnlargement: transform.fit !== 'fill',
        background: transform.background
          ? `#${transform.background}`
          : format === 'jpeg'
            ? { r: 255, g: 255, b: 255, alpha: 1 }
            : { r: 0, g: 0, b: 0, alpha: 0 },
      });
    }
    if (transform.background && format === 'jpeg') pipeline = pipeline.flatten({ background: `#${transform.background}` });
    if (transform.blur !== undefined) pipeline = pipeline.blur(transform.blur);
    pipeline = pipeline.toFormat(format, transform.quality === undefined ? {} : { quality: transform.quality });
    // Written aside and renamed, so a reader never sees half a file.
    const temporary = `${target}.${randomUUID()}.tmp`;
    try {
      await pipeline.toFile(temporary);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  private inputOptions(): SharpOptions {
    return { limitInputPixels: this.limits.maxInputPixels };
  }

  /** The pipeline's pixels, decoded once (raw, not encoded and decoded again) for a new pipeline. */
  private async decoded(pipeline: Sharp): Promise<Sharp> {
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
    return sharp(data, { ...this.inputOptions(), raw: { width: info.width, height: info.height, channels: info.channels } });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
