/**
 * Image transform parameters: validated ranges, then normalized so that requests meaning
 * the same image share one cached variant. Sides asked for are capped at MAX_DIMENSION; what a whole
 * variant may cost, given the image it is made of, is checked in transform-limits.ts.
 */
export const MAX_DIMENSION = 4096;
export const FITS = ['cover', 'contain', 'fill'] as const;
export const OUTPUT_FORMATS = ['webp', 'avif', 'png', 'jpeg'] as const;

export type Fit = (typeof FITS)[number];
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The query parameters, as validated by the route schema. */
export interface TransformQuery {
  w?: number;
  h?: number;
  fit?: Fit;
  format?: OutputFormat;
  q?: number;
  blur?: number;
  dpr?: number;
}

/** How a resize with both sides fills them (sharp's names; the API's fit values are the first three). */
export type ResizeFit = Fit | 'inside' | 'outside';
/** Where a cover crop keeps the image (sharp's positions and strategies). */
export type CropPosition = 'centre' | 'top' | 'bottom' | 'left' | 'right' | 'entropy' | 'attention';

export interface Transform {
  /** A region cut out of the original before anything else: left, top, width, height in pixels. */
  rect?: [number, number, number, number];
  flip?: 'h' | 'v' | 'hv';
  /** Extra clockwise rotation after EXIF orientation. */
  rotate?: 90 | 180 | 270;
  width?: number;
  height?: number;
  fit?: ResizeFit;
  position?: CropPosition;
  /** Background of padded areas, as 6 hex digits. */
  background?: string;
  format?: OutputFormat;
  quality?: number;
  blur?: number;
}

/** The transform a query asks for, or undefined for the original file. */
export function normalizeTransform(query: TransformQuery): Transform | undefined {
  const dpr = query.dpr ?? 1;
  const scale = (value: number | undefined) => (value === undefined ? undefined : Math.min(MAX_DIMENSION, Math.round(value * dpr)));
  const transform: Transform = {};
  const width = scale(query.w);
  const height = scale(query.h);
  if (width !== undefined) transform.width = width;
  if (height !== undefined) transform.height = height;
  // fit only matters when both sides are given.
  if (width !== undefined && height !== undefined) transform.fit = query.fit ?? 'cover';
  if (query.format !== undefined) transform.format = query.format;
  if (query.q !== undefined) transform.quality = query.q;
  if (query.blur !== undefined) transform.blur = query.blur;
  return Object.keys(transform).length === 0 ? undefined : transform;
}

/** A stable text for the cache key: the same transform always gives the same key. */
export function transformKey(transform: Transform): string {
  const { rect, flip, rotate, width, height, fit, position, background, format, quality, blur } = transform;
  return JSON.stringify([rect, flip, rotate, width, height, fit, position, background, format, quality, blur].map((value) => value ?? null));
}
