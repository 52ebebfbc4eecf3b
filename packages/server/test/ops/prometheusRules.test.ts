import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/observability/Metrics.ts';
import { REPO_ROOT } from '../support/childServer.ts';

const RULES_DIR = join(REPO_ROOT, 'deploy/prometheus');
const RULES = join(RULES_DIR, 'payrail-rules.yml');
const RULE_TESTS = join(RULES_DIR, 'payrail-rules.test.yml');

/** Debian's `prometheus` package ships promtool; .ci/run installs it. */
const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;

if (!hasPromtool && !process.env.CI) {
  console.warn(
    'alert rules: promtool checks skipped, no promtool (apt-get install -y prometheus); the metric names were checked',
  );
}

/** Every series a registry exports under its metrics' names (a histogram's _bucket, _count and _sum). */
async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await new Metrics().registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram')
      for (const part of ['_bucket', '_count', '_sum']) names.add(metric.name + part);
  }
  return names;
}

/** The rules of docs/operator/monitoring.md name only metrics that /metrics exports. */
describe('deploy/prometheus/payrail-rules.yml', () => {
  const rules = readFileSync(RULES, 'utf8');

  it('names only metrics that Payrail exports', async () => {
    const exported = await exportedNames();
    const named = new Set(rules.match(/\bpayrail_[a-z0-9_]+/g));
    expect(named.size).toBeGreaterThan(8);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
    // The gauges an operator most needs are alerted on.
    for (const name of [
      'payrail_treasury_coverage_ratio',
      'payrail_jobs_due',
      'payrail_webhook_deliveries_due',
      'payrail_payouts_stuck',
      'payrail_exceptions_open',
      'payrail_redis_up',
      'payrail_connector_up',
    ])
      expect(named, name).toContain(name);
  });

  it('is what docs/operator/monitoring.md describes: every alert there, none missing', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/operator/monitoring.md'), 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    const documented = [...doc.matchAll(/^\| `(Payrail\w+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual(alerts);
  });

  describe.runIf(hasPromtool)('promtool', () => {
    it('check rules: the file is valid', () => {
      expect(execFileSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' })).toMatch(/SUCCESS: \d+ rules/);
    });

    it('test rules: each alert fires on the history it is for and not on the others', () => {
      // promtool resolves rule_files against the test file's folder.
      const run = spawnSync('promtool', ['test', 'rules', RULE_TESTS], { cwd: RULES_DIR, encoding: 'utf8' });
      expect(run.status, run.stdout + run.stderr).toBe(0);
    });
  });

  describe.runIf(!hasPromtool && process.env.CI)('promtool (CI)', () => {
    it('needs promtool', () => {
      expect.fail('promtool is missing: .ci/run installs it (apt-get install -y prometheus)');
    });
  });
});
