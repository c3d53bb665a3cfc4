/**
 * An image's palette from a small sample of its pixels (RGBA, 4 bytes each): `dominant` is the
 * most common colour, `vibrant` the most colourful one of middle lightness (after Vibrant.js's
 * "Vibrant" swatch: saturation >= 0.35, luminance 0.3 to 0.7, scored by closeness to full
 * saturation and mid luminance, then by how common it is). Colours are grouped in buckets of
 * 5 bits per channel; each bucket's colour is the average of its pixels. Transparent pixels are
 * ignored.
 */
export interface Palette {
  dominant: string;
  vibrant: string;
}

interface Bucket {
  count: number;
  r: number;
  g: number;
  b: number;
}

export function paletteFromPixels(rgba: Uint8Array | Buffer): Palette {
  const buckets = new Map<number, Bucket>();
  for (let i = 0; i + 3 < rgba.length; i += 4) {
    if (rgba[i + 3]! < 128) continue;
    const r = rgba[i]!;
    const g = rgba[i + 1]!;
    const b = rgba[i + 2]!;
    const key = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
    const bucket = buckets.get(key);
    if (bucket) {
      bucket.count++;
      bucket.r += r;
      bucket.g += g;
      bucket.b += b;
    } else {
      buckets.set(key, { count: 1, r, g, b });
    }
  }
  if (buckets.size === 0) return { dominant: '#000000', vibrant: '#000000' };

  const colours = [...buckets.values()].map((bucket) => {
    const rgb: [number, number, number] = [bucket.r / bucket.count, bucket.g / bucket.count, bucket.b / bucket.count];
    return { rgb, count: bucket.count, ...saturationAndLightness(rgb) };
  });
  const dominant = colours.reduce((best, colour) => (colour.count > best.count ? colour : best));
  const most = dominant.count;
  const score = (colour: (typeof colours)[number]) =>
    3 * (1 - Math.abs(colour.saturation - 1)) + 6.5 * (1 - Math.abs(colour.lightness - 0.5)) + 0.5 * (colour.count / most);
  const candidates = colours.filter((colour) => colour.saturation >= 0.35 && colour.lightness >= 0.3 && colour.lightness <= 0.7);
  const vibrant =
    candidates.length > 0
      ? candidates.reduce((best, colour) => (score(colour) > score(best) ? colour : best))
      : colours.reduce((best, colour) => (colour.saturation > best.saturation ? colour : best));
  return { dominant: hex(dominant.rgb), vibrant: hex(vibrant.rgb) };
}

function saturationAndLightness([r, g, b]: [number, number, number]): { saturation: number; lightness: number } {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  const lightness = (max + min) / 2;
  const delta = max - min;
  const saturation = delta === 0 ? 0 : delta / (1 - Math.abs(2 * lightness - 1));
  return { saturation, lightness };
}

function hex(rgb: [number, number, number]): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}
