import type { ImageConfig } from '../config.ts';
import { badRequest } from '../errors.ts';
import type { Transform } from './transform.ts';

export interface Size {
  readonly width: number;
  readonly height: number;
}

export type PixelLimits = Pick<ImageConfig, 'maxInputPixels' | 'maxOutputPixels'>;

/** The longest side WebP can hold; no variant is made longer, whatever its format. */
export const MAX_VARIANT_SIDE = 16_383;

const megapixels = (pixels: number): string => `${Number((pixels / 1_000_000).toFixed(1))} MP`;

/**
 * The transform to render for an image of size `image` (as displayed), checked before any pixel is
 * decoded: the image has at most maxInputPixels, a rect lies inside it, and the variant has at most
 * maxOutputPixels and MAX_VARIANT_SIDE on a side; beyond these the request is a 400. A variant that
 * asks for no size keeps the image's, scaled down to fit those limits, so `?format=webp` of a large
 * photo still answers.
 */
export function limitTransform(image: Size, transform: Transform, limits: PixelLimits): Transform {
  const inputPixels = image.width * image.height;
  if (inputPixels > limits.maxInputPixels) {
    throw badRequest(`The image is too large to transform (${megapixels(inputPixels)}; at most ${megapixels(limits.maxInputPixels)}); ask for it without parameters`);
  }
  const source = sourceSize(image, transform);
  if (transform.width === undefined && transform.height === undefined) return fitUnsized(source, transform, limits.maxOutputPixels);
  const output = outputSize(source, transform);
  const outputPixels = output.width * output.height;
  if (outputPixels > limits.maxOutputPixels || Math.max(output.width, output.height) > MAX_VARIANT_SIDE) {
    throw badRequest(
      `The variant would be ${output.width}x${output.height} pixels (${megapixels(outputPixels)}); ` +
        `at most ${megapixels(limits.maxOutputPixels)} and ${MAX_VARIANT_SIDE} px a side: ask for a smaller w or h`,
    );
  }
  return transform;
}

/** What resizing starts from: the rect, which must lie inside the image, turned by `rotate`. */
function sourceSize(image: Size, { rect, rotate }: Transform): Size {
  let size = image;
  if (rect) {
    const [left, top, width, height] = rect;
    if (left + width > image.width || top + height > image.height) {
      throw badRequest(`rect must lie inside the image, which is ${image.width}x${image.height}`);
    }
    size = { width, height };
  }
  return rotate === 90 || rotate === 270 ? { width: size.height, height: size.width } : size;
}

/**
 * The variant's size, or a bound on it: with both sides, w x h (cover and contain never exceed it);
 * with one, the other follows the aspect ratio and neither side is enlarged, as sharp resizes.
 */
export function outputSize(source: Size, { width, height }: Pick<Transform, 'width' | 'height'>): Size {
  if (width !== undefined && height !== undefined) return { width, height };
  if (width !== undefined) {
    const w = Math.min(width, source.width);
    return { width: w, height: Math.max(1, Math.round((source.height * w) / source.width)) };
  }
  if (height !== undefined) {
    const h = Math.min(height, source.height);
    return { width: Math.max(1, Math.round((source.width * h) / source.height)), height: h };
  }
  return source;
}

/** An unsized variant too large for the limits gets the longest side whose variant fits them. */
function fitUnsized(source: Size, transform: Transform, maxPixels: number): Transform {
  const fits = (size: Size) => size.width * size.height <= maxPixels && Math.max(size.width, size.height) <= MAX_VARIANT_SIDE;
  if (fits(source)) return transform;
  // Set the long side: the short one follows, at least 1 px, however narrow the image.
  const key = source.width >= source.height ? 'width' : 'height';
  let side = Math.min(MAX_VARIANT_SIDE, Math.floor(source[key] * Math.sqrt(maxPixels / (source.width * source.height))));
  // The short side is rounded, so the product can pass the limit by a row.
  while (side > 1 && !fits(outputSize(source, { [key]: side }))) side -= 1;
  return { ...transform, [key]: side };
}
