import type { JsonObject } from '../store/index.ts';

/**
 * `sanity dataset export` replaces each asset reference in the content by
 * `{_sanityAsset: "image@file://./images/<name>"}` (or `file@file://./files/<name>`) and writes the
 * file into the archive. These find and rewrite such nodes.
 */
export const SANITY_ASSET_KEY = '_sanityAsset';
const LOCAL = /^(image|file)@file:\/\/\.\/((?:images|files)\/[^/\\]+)$/;

export interface LocalAssetReference {
  kind: 'image' | 'file';
  /** Relative to the folder of data.ndjson, e.g. images/abc-10x10.png (never leaves that folder). */
  path: string;
}

export function parseSanityAssetReference(value: string): LocalAssetReference | undefined {
  const match = LOCAL.exec(value);
  if (!match || match[2]!.includes('..')) return undefined;
  return { kind: match[1] as 'image' | 'file', path: match[2]! };
}

/** Every `_sanityAsset` value in a document. */
export function collectSanityAssets(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) collectSanityAssets(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === SANITY_ASSET_KEY && typeof child === 'string') found.add(child);
      else collectSanityAssets(child, found);
    }
  }
  return found;
}

/** Replaces `_sanityAsset` by `asset: {_type: "reference", _ref}` wherever `resolve` knows the value. */
export function rewriteSanityAssets(value: unknown, resolve: (reference: string) => string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteSanityAssets(item, resolve));
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const ref = key === SANITY_ASSET_KEY && typeof child === 'string' ? resolve(child) : undefined;
    if (ref !== undefined) out.asset = { _type: 'reference', _ref: ref };
    else out[key] = rewriteSanityAssets(child, resolve);
  }
  return out;
}

/** The reverse, for exports: a reference to an asset document becomes `_sanityAsset` with its archive path. */
export function toSanityAssets(value: unknown, archivePathOf: (assetDocumentId: string) => string | undefined): unknown {
  if (Array.isArray(value)) return value.map((item) => toSanityAssets(item, archivePathOf));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as JsonObject;
  const asset = record.asset as JsonObject | undefined;
  const path = typeof asset?._ref === 'string' ? archivePathOf(asset._ref) : undefined;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(record)) {
    if (key === 'asset' && path !== undefined) out[SANITY_ASSET_KEY] = `${path.startsWith('images/') ? 'image' : 'file'}@file://./${path}`;
    else out[key] = toSanityAssets(child, archivePathOf);
  }
  return out;
}
