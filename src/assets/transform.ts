/**
 * Image transform parameters (SPEC.md): validated ranges, then normalized so that requests meaning
 * the same image share one cached variant. Output dimensions are capped: no request can make the
 * server allocate an image larger than MAX_DIMENSION on a side.
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

export interface Transform {
  width?: number;
  height?: number;
  fit?: Fit;
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
  const { width, height, fit, format, quality, blur } = transform;
  return JSON.stringify([width ?? null, height ?? null, fit ?? null, format ?? null, quality ?? null, blur ?? null]);
}
