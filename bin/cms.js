#!/usr/bin/env node
// The published package runs the compiled CLI; a source checkout runs the TypeScript directly
// (Node 24 strips types natively).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/cli/index.js', import.meta.url);
await import(existsSync(fileURLToPath(built)) ? built.href : new URL('../src/cli/index.ts', import.meta.url).href);
