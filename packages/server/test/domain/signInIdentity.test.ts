import { describe, expect, it } from 'vitest';
import { auditedApiKey, signInApiKey, signInEmail } from '../../src/domain/signInIdentity.ts';

/** Fullwidth forms (U+FF01…U+FF5E) of printable ASCII: what NFKC folds back. */
const fullwidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

describe('signInEmail', () => {
  it.each([
    'bf1@x.test',
    ' bf1@x.test',
    'bf1@x.test ',
    '\tBF1@X.Test\n',
    'bf1@x.TEST ',
    fullwidth('bf1@x.test'),
    fullwidth('BF1@X.TEST'),
    `\u00a0${fullwidth('Bf1')}@x.test\u3000`,
  ])('reads %j as bf1@x.test', (spelling) => {
    expect(signInEmail(spelling)).toBe('bf1@x.test');
  });

  it('lower-cases what NFKC turns into capitals (ℌ is H)', () => {
    expect(signInEmail('ℌi@x.test')).toBe('hi@x.test');
  });

  it('keeps distinct addresses distinct', () => {
    expect(signInEmail('bf1@x.test')).not.toBe(signInEmail('bf2@x.test'));
    expect(signInEmail('b f1@x.test')).toBe('b f1@x.test');
  });

  it.each(['bf1@x.test', ' ℌi@X.test ', '´x@y.test', 'İ@x.test', 'ﬀ@x.test', 'Straße@x.test', fullwidth('A@B.C')])(
    'is idempotent for %j',
    (spelling) => {
      const once = signInEmail(spelling);
      expect(signInEmail(once)).toBe(once);
    },
  );
});

describe('signInApiKey', () => {
  const key = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';

  it.each([key, ` ${key}`, `${key} `, `\u3000${key}\u00a0`, fullwidth(key)])('reads %j as the key', (spelling) => {
    expect(signInApiKey(spelling)).toBe(key);
  });

  it('keeps case: API keys are case-sensitive', () => {
    expect(signInApiKey(key.toLowerCase())).toBe(key.toLowerCase());
  });
});

describe('auditedApiKey', () => {
  const key = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';

  it('names a key by a short hash, never by the key or a part of it', () => {
    const named = auditedApiKey(key);
    expect(named).toMatch(/^api-key:[A-Za-z0-9_-]{12}$/);
    expect(named).not.toContain(key.slice(0, 4));
    expect(named).not.toContain(key.slice(-4));
  });

  it('names every spelling of one key alike, and different keys differently', () => {
    expect(auditedApiKey(` ${fullwidth(key)} `)).toBe(auditedApiKey(key));
    expect(auditedApiKey(`${key.slice(0, -1)}6`)).not.toBe(auditedApiKey(key));
  });
});
