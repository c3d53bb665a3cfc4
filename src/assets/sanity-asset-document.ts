import type { AssetRecord, JsonObject } from '../store/index.ts';
import { ASSET_URL_PREFIX } from './asset-service.ts';

/**
 * Sanity models assets as documents: `sanity.imageAsset` with the id
 * `image-<sha1>-<width>x<height>-<ext>` and `sanity.fileAsset` with `file-<sha1>-<ext>`; content
 * references them (`asset: {_ref}`), and GROQ follows `asset->url`. These build that document for
 * one of our stored assets, so content imported from Sanity (or written by Sanity's clients) keeps
 * working here.
 */
export function sanityAssetId(asset: Pick<AssetRecord, 'type' | 'sha1' | 'extension' | 'metadata'>): string {
  if (asset.type === 'image') return `image-${asset.sha1}-${String(asset.metadata.width)}x${String(asset.metadata.height)}-${asset.extension}`;
  return `file-${asset.sha1}-${asset.extension}`;
}

/** The file name Sanity's export archive gives an asset: `images/<sha1>-<w>x<h>.<ext>` or `files/<sha1>.<ext>`. */
export function sanityArchivePath(asset: Pick<AssetRecord, 'type' | 'sha1' | 'extension' | 'metadata'>): string {
  if (asset.type === 'image') return `images/${asset.sha1}-${String(asset.metadata.width)}x${String(asset.metadata.height)}.${asset.extension}`;
  return `files/${asset.sha1}.${asset.extension}`;
}

/**
 * `baseUrl`: PUBLIC_URL, so that `url` is absolute as Sanity's are (Studio links to files by it);
 * empty: a URL relative to the service.
 */
export function sanityAssetDocument(asset: AssetRecord, originalFilename: string | null, baseUrl: string): JsonObject & { _id: string; _type: string } {
  const width = Number(asset.metadata.width);
  const height = Number(asset.metadata.height);
  const base = {
    _id: sanityAssetId(asset),
    _type: asset.type === 'image' ? 'sanity.imageAsset' : 'sanity.fileAsset',
    assetId: asset.sha1,
    sha1hash: asset.sha1,
    extension: asset.extension,
    mimeType: asset.mimeType,
    originalFilename,
    size: asset.size,
    path: asset.path,
    url: `${baseUrl}${ASSET_URL_PREFIX}${asset.id}`,
  };
  if (asset.type !== 'image') return base;
  return {
    ...base,
    metadata: {
      _type: 'sanity.imageMetadata',
      dimensions: { _type: 'sanity.imageDimensions', width, height, aspectRatio: width / height },
      hasAlpha: asset.metadata.hasAlpha,
      isOpaque: !asset.metadata.hasAlpha,
      palette: asset.metadata.palette,
    },
  };
}
