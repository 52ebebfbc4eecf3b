#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so that no build step stands between `npm install` and `npx payrail`.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
