import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** scrypt cost: N = 2^15, r = 8, p = 1 (about 32 MiB and tens of milliseconds per check). */
export const PASSWORD_COST: Readonly<ScryptCost> = Object.freeze({ N: 32768, r: 8, p: 1 });
const PARAMS = PASSWORD_COST;
/**
 * The cost tests hash with (createServer's passwordCost): N = 2^10, about 4 ms a hash instead of about 120 ms, for the
 * hundreds of operators the tests create and sign in. Never a setting: no configuration reaches it, so an instance
 * always hashes at PASSWORD_COST; a test checks the stored parameters of a server started without it.
 */
export const TEST_PASSWORD_COST: Readonly<ScryptCost> = Object.freeze({ N: 1024, r: 8, p: 1 });
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64: the parameters travel with the hash, so they can grow. */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 1 << 20) return false;
  const expected = Buffer.from(parts[5] as string, 'base64');
  const key = await derive(password, Buffer.from(parts[4] as string, 'base64'), { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash to check against when the account does not exist, so that both paths take the same time. */
export const DUMMY_PASSWORD_HASH = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;

/** Passwords: 10–200 characters. Length is what matters; no composition rules (NIST SP 800-63B). */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'password must be a string';
  if ([...password].length < 10) return 'password must have at least 10 characters';
  if (password.length > 200) return 'password must have at most 200 characters';
  return null;
}
