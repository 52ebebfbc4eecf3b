import { readFileSync } from 'node:fs';

/** The server package's version (webhook `User-Agent`); read once from its package.json beside `src/`. */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
