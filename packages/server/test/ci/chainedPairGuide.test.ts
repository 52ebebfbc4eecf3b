import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');
const shellBlocks = (text: string) => [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1] as string);

/**
 * docs/operator/connectors.md "A chained pair on one machine" hands over to the README's walk-through (issue 32: it
 * started the downstream without the README's admin token, so the README's commands were refused). Running both
 * servers takes two first starts; this checks what made the pasted guide fail, and the return it now shows.
 */
it('starts the downstream with the admin token the README uses, waits for the upstream, and shows a return', () => {
  const guide = read('docs/operator/connectors.md');
  const section = guide.slice(guide.indexOf('### A chained pair on one machine'), guide.indexOf('### What happens'));
  const [setup, ret] = shellBlocks(section);
  const readmeToken = /export ADMIN="Authorization: Bearer ([^"]+)"/.exec(read('README.md'))?.[1];
  expect(readmeToken).toBe('dev-admin-token');
  // The last command of the setup starts the downstream, with that token.
  const downstream = (setup ?? '').slice((setup ?? '').lastIndexOf('# 3.'));
  expect(downstream).toContain(`PAYRAIL_ADMIN_TOKEN=${readmeToken} `);
  expect(downstream.trim().endsWith('npm start')).toBe(true);
  // The upstream starts in the background: the next command waits until it answers, not a fixed sleep.
  const lines = (setup ?? '').split('\n');
  const started = lines.findIndex((l) => l.includes('PAYRAIL_DATA_DIR=./data-upstream') && l.trim().endsWith('&'));
  expect(lines[started + 1]).toMatch(/^until curl -sf http:\/\/127\.0\.0\.1:9090\/readyz/);
  // A return at the upstream, then the downstream's payout read with the README's token.
  expect(ret).toMatch(/-X POST "\$UP\/admin\/v1\/payouts\/\$UP_TXN\/return"/);
  expect(ret).toContain(`Bearer ${readmeToken}`);
});
