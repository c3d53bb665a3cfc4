// `sanity build` writes an index.html that loads two things from Sanity's servers: the "bridge"
// script (core.sanity-cdn.com/bridge.js), which connects a studio to Sanity's hosted dashboard, and
// the Inter font (studio-static.sanity.io). A self-hosted studio needs neither, and editors'
// browsers should not fetch code from a third party: both are removed. Without the @font-face
// rules the studio shows its fallback fonts (the system's UI font).
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'dist/index.html';
const html = readFileSync(file, 'utf8');
const stripped = html
  .replace(/<script\b[^>]*\bsrc="https:\/\/core\.sanity-cdn\.[a-z]+\/bridge\.js"[^>]*><\/script>\s*/g, '')
  .replace(/@font-face\s*\{[^}]*studio-static\.sanity\.io[^}]*\}\s*/g, '');
const left = /https:\/\/[\w.-]*(?:sanity-cdn|sanity\.io)[^\s"')]*/.exec(stripped);
if (left) {
  console.error(`${file} still loads ${left[0]} from Sanity's servers: check the studio's build`);
  process.exit(1);
}
writeFileSync(file, stripped);
console.log(`${file}: removed what it loaded from Sanity's servers (${html.length - stripped.length} bytes)`);
