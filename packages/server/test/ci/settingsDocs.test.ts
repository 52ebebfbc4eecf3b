import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTING_VARIABLES } from '../../src/configSchema.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const REFERENCE = 'docs/operator/configuration.md';
const SOURCES = join(ROOT, 'packages/server/src');

interface Row {
  /** The variables the first cell names, abbreviations (`_PER_ADDRESS`) spelled out. */
  named: string[];
  /** The whole row, for variables named in its other cells. */
  text: string;
  /** The Default cell. */
  defaults: string;
}

const known = new Set(SETTING_VARIABLES.map((v) => v.name));

/**
 * `_SUFFIX` after a full name in the same cell stands for that name lengthened or with its tail replaced
 * (`PAYRAIL_UPSTREAM_URL`, `_API_KEY` → `PAYRAIL_UPSTREAM_API_KEY`): the spelling that is a setting, else the one
 * keeping the most of the name.
 */
function expand(suffix: string, base: string): string {
  const spellings: string[] = [];
  for (let i = base.length; i > 0; i--)
    if (i === base.length || base[i] === '_') spellings.push(base.slice(0, i) + suffix);
  return spellings.find((name) => known.has(name)) ?? spellings[0] ?? suffix;
}

/** The rows of the reference's "Variables" table. */
function referenceRows(): Row[] {
  const markdown = readFileSync(join(ROOT, REFERENCE), 'utf8');
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Variables')) ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => {
      const cells = line.split('|').slice(1, -1);
      const named: string[] = [];
      let base = '';
      for (const [, name] of (cells[0] ?? '').matchAll(/`(_?[A-Z][A-Z0-9_]*)`/g)) {
        if (!name) continue;
        if (name.startsWith('_')) named.push(expand(name, base));
        else named.push((base = name));
      }
      return { named, text: line, defaults: cells[1] ?? '' };
    });
}

const mentions = (text: string, name: string) => new RegExp(`\`${name}\``).test(text);

/** Every .ts file under a folder. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcesUnder(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/**
 * The settings table (src/configSchema.ts) is the one list of the server's environment variables; the operator's
 * reference must show each of them, with the default the server really uses.
 */
describe(`the settings reference (${REFERENCE})`, () => {
  const rows = referenceRows();

  it('documents every variable of the settings table', () => {
    const missing = SETTING_VARIABLES.filter(
      (v) => !rows.some((r) => r.named.includes(v.name) || mentions(r.text, v.name)),
    );
    expect(missing.map((v) => `${v.name}: ${v.doc}`)).toEqual([]);
  });

  it('documents no variable the settings table does not have', () => {
    const unknown = rows.flatMap((r) => r.named).filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
  });

  it("gives each variable's default as the server has it", () => {
    const wrong = SETTING_VARIABLES.filter((v) => v.fallback !== null).flatMap((v) => {
      const row = rows.find((r) => r.named.includes(v.name)) ?? rows.find((r) => mentions(r.text, v.name));
      return row && !mentions(row.defaults, v.fallback as string) ? [`${v.name}: \`${v.fallback}\``] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('the settings table has every variable the server reads', () => {
    // Read as env.NAME, or named by a string literal of its own (env[name], a ConfigError's variable).
    const read = new Set<string>();
    for (const file of sourcesUnder(SOURCES)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b|'(PAYRAIL_[A-Z0-9_]+)'/g)) {
        read.add((m[1] ?? m[2]) as string);
      }
    }
    expect([...read].filter((name) => !known.has(name)).sort()).toEqual([]);
  });
});
