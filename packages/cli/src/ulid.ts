import { randomBytes } from 'node:crypto';
import { now as clockNow } from './clock.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID (48-bit millisecond time, 80 random bits, Crockford base 32): references the CLI makes up sort by time,
 * like the server's identifiers. Written here because the CLI must not load the server package (which has the
 * `ulid` dependency) for operator commands.
 */
export function ulid(now = clockNow()): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[(bytes[i] as number) % 32];
  return time + random;
}
