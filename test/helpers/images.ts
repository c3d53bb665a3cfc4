import sharp from 'sharp';

/** Real image files made with sharp, for upload tests. */
export function solidPng(width: number, height: number, colour = { r: 200, g: 30, b: 30, alpha: 0.5 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: colour } }).png().toBuffer();
}

/** A JPEG stored 300 wide and 200 high whose EXIF orientation (6) says: turn it a quarter to view. */
export function rotatedJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 20, g: 120, b: 220 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

export function stripedWebp(): Promise<Buffer> {
  // Mostly grey with a band of saturated orange: dominant grey, vibrant orange.
  const width = 120;
  const height = 80;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * 3;
      const orange = y >= 60;
      pixels[offset] = orange ? 240 : 128;
      pixels[offset + 1] = orange ? 120 : 128;
      pixels[offset + 2] = orange ? 20 : 128;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).webp({ lossless: true }).toBuffer();
}

export function largeJpeg(width = 2000, height = 1500): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: 85 }).toBuffer();
}

export const SVG_WITH_SCRIPT = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10" fill="red"/></svg>',
);
