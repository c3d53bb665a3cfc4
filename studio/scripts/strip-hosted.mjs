// `sanity build` writes an index.html that loads two things from Sanity's servers: the "bridge"
// script (core.sanity-cdn.com/bridge.js), which connects a studio to Sanity's hosted dashboard, and
// the Inter font (studio-static.sanity.io; from Studio 6 on, the bundle's CSS loads it from
// design-system-static.sanity.io). A self-hosted studio needs neither, and editors' browsers should
// not fetch code or fonts from a third party: both are removed. Without the @font-face rules the
// studio shows its fallback fonts (the system's UI font).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const SANITY_URL = /https:\/\/[\w.-]*(?:sanity-cdn|sanity\.io)[^\s"')]*/;
const FONT_FACE = /@font-face\s*\{[^}]*(?:studio-static|design-system-static)\.sanity\.io[^}]*\}\s*/g;

const file = process.argv[2] ?? 'dist/index.html';
const html = readFileSync(file, 'utf8');
const stripped = html.replace(/<script\b[^>]*\bsrc="https:\/\/core\.sanity-cdn\.[a-z]+\/bridge\.js"[^>]*><\/script>\s*/g, '').replace(FONT_FACE, '');
const left = SANITY_URL.exec(stripped);
if (left) {
  console.error(`${file} still loads ${left[0]} from Sanity's servers: check the studio's build`);
  process.exit(1);
}
writeFileSync(file, stripped);
let removed = html.length - stripped.length;

// The bundle's style sheets (static/*.css); the JavaScript's own links (docs, Sanity's CDN for
// version checks) are refused by the page's Content-Security-Policy instead.
const assets = join(dirname(file), 'static');
for (const name of readdirSync(assets).filter((entry) => entry.endsWith('.css'))) {
  const css = readFileSync(join(assets, name), 'utf8');
  const cleaned = css.replace(FONT_FACE, '');
  if (cleaned !== css) writeFileSync(join(assets, name), cleaned);
  removed += css.length - cleaned.length;
}
console.log(`${dirname(file)}: removed what it loaded from Sanity's servers (${removed} bytes)`);
