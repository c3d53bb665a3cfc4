import sharp, { type Metadata } from 'sharp';
import { fileTypeFromFile } from 'file-type';
import type { AssetType, JsonObject } from '../store/index.ts';
import { paletteFromPixels } from './palette.ts';

export interface Inspection {
  type: AssetType;
  mimeType: string;
  extension: string;
  metadata: JsonObject;
}

// Formats sharp reads that we treat as images, with their file extension and media type.
const IMAGE_FORMATS: ReadonlyMap<string, { extension: string; mimeType: string }> = new Map([
  ['jpeg', { extension: 'jpg', mimeType: 'image/jpeg' }],
  ['png', { extension: 'png', mimeType: 'image/png' }],
  ['webp', { extension: 'webp', mimeType: 'image/webp' }],
  ['gif', { extension: 'gif', mimeType: 'image/gif' }],
  ['avif', { extension: 'avif', mimeType: 'image/avif' }],
  ['tiff', { extension: 'tif', mimeType: 'image/tiff' }],
  ['svg', { extension: 'svg', mimeType: 'image/svg+xml' }],
]);

/**
 * Images larger than this many pixels are stored as files: decoding them could exhaust memory.
 * Transforms have their own limit, IMAGE_MAX_INPUT_PIXELS, which cannot exceed this one.
 */
export const MAX_INPUT_PIXELS = 100_000_000;
const PALETTE_SAMPLE = 48;

/**
 * Decides what a stored file is from its bytes alone (never from its name or the client's
 * Content-Type): an image sharp can read, with its metadata, or a file with the media type its
 * signature shows (application/octet-stream when none).
 */
export async function inspectFile(path: string, filename: string | null): Promise<Inspection> {
  const image = await inspectImage(path);
  if (image) return image;
  const detected = await fileTypeFromFile(path).catch(() => undefined);
  return {
    type: 'file',
    mimeType: detected?.mime ?? 'application/octet-stream',
    extension: detected?.ext ?? extensionFromName(filename) ?? 'bin',
    metadata: {},
  };
}

async function inspectImage(path: string): Promise<Inspection | undefined> {
  let info: Metadata;
  try {
    info = await sharp(path, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    return undefined;
  }
  const format = info.format === 'heif' && info.compression === 'av1' ? 'avif' : info.format;
  const known = IMAGE_FORMATS.get(format);
  if (!known || !info.width || !info.height || info.width * info.height > MAX_INPUT_PIXELS) return undefined;
  // EXIF orientations 5 to 8 turn the image a quarter: width and height are what a viewer shows.
  const turned = (info.orientation ?? 1) >= 5;
  const pixels = await sharp(path, { limitInputPixels: MAX_INPUT_PIXELS })
    .resize(PALETTE_SAMPLE, PALETTE_SAMPLE, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer()
    .catch(() => undefined);
  if (!pixels) return undefined;
  return {
    type: 'image',
    ...known,
    metadata: {
      width: turned ? info.height : info.width,
      height: turned ? info.width : info.height,
      format,
      hasAlpha: info.hasAlpha ?? false,
      palette: { ...paletteFromPixels(pixels) },
    },
  };
}

function extensionFromName(filename: string | null): string | undefined {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(filename ?? '');
  return match?.[1]?.toLowerCase();
}
