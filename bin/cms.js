#!/usr/bin/env node
// A source checkout runs the TypeScript directly (Node 24 strips types), so the command always
// matches the code; a package installed without its sources runs the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/cli/index.ts', import.meta.url);
await import(existsSync(fileURLToPath(source)) ? source.href : new URL('../dist/cli/index.js', import.meta.url).href);
