#!/usr/bin/env node
// The compiled CLI (packages/cli/dist): `npm install` builds it (the root `prepare` script), `npm run build` again.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('payrail: the CLI is not built yet; run `npm run build` in the Payrail repository\n');
  process.exit(1);
}
await import(entry.href);
