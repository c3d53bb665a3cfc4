// `sanity build` always adds <script src="https://core.sanity-cdn.com/bridge.js">, which connects a
// studio to Sanity's hosted dashboard. A self-hosted studio has no use for it, and it would make
// every editor's browser load code from a third party: the built index.html is rewritten without it.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'dist/index.html';
const html = readFileSync(file, 'utf8');
const stripped = html.replace(/<script\b[^>]*\bsrc="https:\/\/core\.sanity-cdn\.[a-z]+\/bridge\.js"[^>]*><\/script>\s*/g, '');
if (/sanity-cdn\./.test(stripped)) {
  console.error(`${file} still loads something from Sanity's CDN: check the studio's build`);
  process.exit(1);
}
writeFileSync(file, stripped);
console.log(html === stripped ? `${file}: no bridge script to remove` : `${file}: removed Sanity's bridge script`);
