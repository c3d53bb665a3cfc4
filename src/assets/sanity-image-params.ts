import { badRequest } from '../errors.ts';
import { MAX_DIMENSION, type CropPosition, type OutputFormat, type ResizeFit, type Transform } from './transform.ts';

/**
 * The parameters @sanity/image-url puts on an image URL, mapped to our transform pipeline:
 * w, h, rect, fit, crop, fm, auto=format, q, dpr, blur, bg, flip, or (imgix semantics, which
 * Sanity's CDN follows). Values out of range are 400, sides after dpr are capped like /assets.
 */
// Maps, so that a name from the request (`constructor`, `__proto__`) finds nothing inherited.
const FITS: ReadonlyMap<string, ResizeFit> = new Map([
  ['clip', 'inside'],
  ['max', 'inside'],
  ['crop', 'cover'],
  ['min', 'cover'],
  ['fill', 'contain'],
  ['fillmax', 'contain'],
  ['scale', 'fill'],
]);
const CROPS: ReadonlyMap<string, CropPosition> = new Map([
  ['center', 'centre'],
  ['top', 'top'],
  ['bottom', 'bottom'],
  ['left', 'left'],
  ['right', 'right'],
  ['entropy', 'entropy'],
  ['focalpoint', 'attention'],
]);
const FORMATS: ReadonlyMap<string, OutputFormat> = new Map([
  ['jpg', 'jpeg'],
  ['pjpg', 'jpeg'],
  ['jpeg', 'jpeg'],
  ['png', 'png'],
  ['webp', 'webp'],
  ['avif', 'avif'],
]);

function number(query: Record<string, unknown>, name: string, min: number, max: number, integer = true): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    throw badRequest(`${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return value;
}

function choice<T>(query: Record<string, unknown>, name: string, options: ReadonlyMap<string, T>): T | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? options.get(raw) : undefined;
  if (value === undefined) throw badRequest(`${name} must be one of: ${[...options.keys()].join(', ')}`);
  return value;
}

export function sanityImageTransform(query: Record<string, unknown>): Transform | undefined {
  const transform: Transform = {};
  if (query.rect !== undefined) {
    const parts = String(query.rect).split(',').map(Number);
    if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0) || parts[2] === 0 || parts[3] === 0) {
      throw badRequest('rect must be left,top,width,height in whole pixels');
    }
    transform.rect = parts as [number, number, number, number];
  }
  const flip = query.flip;
  if (flip !== undefined) {
    if (flip !== 'h' && flip !== 'v' && flip !== 'hv') throw badRequest('flip must be h, v or hv');
    transform.flip = flip;
  }
  const orientation = number(query, 'or', 0, 270);
  if (orientation !== undefined) {
    if (orientation % 90 !== 0) throw badRequest('or must be 0, 90, 180 or 270');
    if (orientation !== 0) transform.rotate = orientation as 90 | 180 | 270;
  }
  const dpr = number(query, 'dpr', 1, 3, false) ?? 1;
  const side = (name: string) => {
    const value = number(query, name, 1, MAX_DIMENSION);
    return value === undefined ? undefined : Math.min(MAX_DIMENSION, Math.round(value * dpr));
  };
  const width = side('w');
  const height = side('h');
  if (width !== undefined) transform.width = width;
  if (height !== undefined) transform.height = height;
  const fit = choice(query, 'fit', FITS);
  const position = choice(query, 'crop', CROPS);
  if (width !== undefined && height !== undefined) {
    transform.fit = fit ?? 'inside';
    if (transform.fit === 'cover' && position) transform.position = position;
  }
  if (query.bg !== undefined) {
    const background = String(query.bg).replace(/^#/, '').toLowerCase();
    if (!/^([0-9a-f]{3}|[0-9a-f]{6})$/.test(background)) throw badRequest('bg must be a hex colour such as fff or ff0000');
    transform.background = background.length === 3 ? [...background].map((digit) => digit + digit).join('') : background;
  }
  const format = choice(query, 'fm', FORMATS);
  if (format) transform.format = format;
  else if (query.auto !== undefined) {
    if (query.auto !== 'format') throw badRequest('auto must be format');
    transform.format = 'webp';
  }
  const quality = number(query, 'q', 0, 100);
  if (quality !== undefined) transform.quality = Math.max(1, quality);
  const blur = number(query, 'blur', 0, 2000, false);
  if (blur !== undefined && blur > 0) transform.blur = Math.min(100, Math.max(0.3, blur / 10));
  return Object.keys(transform).length === 0 ? undefined : transform;
}
