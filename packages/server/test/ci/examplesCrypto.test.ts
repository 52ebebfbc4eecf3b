import { spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// examples/crypto.mjs is pasted from the README and the guides: wrong input says what is wrong, in one line and an
// exit code, never a Node stack trace (issue 32: "Invalid authentication tag length: 6" from decrypting "undefined").
const SCRIPT = fileURLToPath(new URL('../../../../examples/crypto.mjs', import.meta.url));
const API_KEY = 'A'.repeat(32);
const SECRET_KEY = 'S'.repeat(16);

function run(args: string[], env: Record<string, string | undefined> = { API_KEY, SECRET_KEY }) {
  const clean = { ...process.env, API_KEY: undefined, SECRET_KEY: undefined, ...env };
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { env: clean as NodeJS.ProcessEnv, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

describe('examples/crypto.mjs', () => {
  it('round-trips V2 and V1', () => {
    for (const scheme of ['v2', 'v1']) {
      const sealed = run([scheme, 'encrypt', '{"a":1}']);
      expect(sealed.code).toBe(0);
      expect(run([scheme, 'decrypt', sealed.stdout])).toEqual({ code: 0, stdout: '{"a":1}', stderr: '' });
    }
  });

  it('says what is wrong with its input, with an exit code and no stack trace', () => {
    const v2 = run(['v2', 'encrypt', '{"a":1}']).stdout;
    const v1 = run(['v1', 'encrypt', '{"a":1}']).stdout;
    const raw = Buffer.from(v2, 'base64');
    raw[14] = (raw[14] as number) ^ 1;
    const tampered = raw.toString('base64');
    // A V1 text long enough to pass V2's length check, so that only the scheme is wrong.
    const c = createCipheriv('aes-256-cbc', Buffer.from(API_KEY), Buffer.from(SECRET_KEY));
    const longV1 = Buffer.concat([c.update('{"a":"a longer plaintext than sixteen"}'), c.final()]).toString('base64');
    const cases: [string[], Record<string, string | undefined>, number, RegExp][] = [
      [['v2', 'decrypt', 'x'], {}, 2, /SECRET_KEY is not set/],
      [['v1', 'decrypt', v1], { SECRET_KEY }, 2, /API_KEY is not set/],
      [['v1', 'decrypt', v1], { API_KEY: 'short', SECRET_KEY }, 2, /API_KEY must be 32 bytes.*it is 5/],
      [['v1', 'encrypt', 'x'], { API_KEY, SECRET_KEY: 'short' }, 2, /SECRET_KEY must be 16 bytes.*it is 5/],
      [['v3', 'decrypt', 'x'], { SECRET_KEY }, 2, /^crypto\.mjs: usage:/],
      [['v2', 'decrypt'], { SECRET_KEY }, 2, /usage:/],
      [['v2', 'decrypt', 'undefined'], { SECRET_KEY }, 1, /nothing to decrypt.*did the request fail/],
      [['v2', 'decrypt', ''], { SECRET_KEY }, 1, /nothing to decrypt/],
      [['v2', 'decrypt', 'not base64!'], { SECRET_KEY }, 1, /not base64/],
      [['v2', 'decrypt', 'AAAA'], { SECRET_KEY }, 1, /too short for V2: 3 bytes/],
      [['v2', 'decrypt', v1], { SECRET_KEY }, 1, /too short for V2.*try v1/],
      [['v2', 'decrypt', longV1], { SECRET_KEY }, 1, /V2 text does not decrypt.*V1 text/],
      [['v2', 'decrypt', tampered], { SECRET_KEY }, 1, /V2 text does not decrypt.*altered/],
      [['v2', 'decrypt', v2], { SECRET_KEY: 'another-secret-k' }, 1, /another SECRET_KEY/],
      [['v1', 'decrypt', v2], { API_KEY, SECRET_KEY }, 1, /not a V1 text|V1 text does not decrypt/],
      [['v1', 'decrypt', v1], { API_KEY: 'B'.repeat(32), SECRET_KEY }, 1, /V1 text does not decrypt/],
    ];
    for (const [args, env, code, message] of cases) {
      const r = run(args, env);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code, stdout: '' });
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at |Error:/);
    }
  });
});
