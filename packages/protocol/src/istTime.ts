/**
 * India Standard Time: the calendar Payrail's periods are in (allowances, statements, console filters, bank files,
 * reconciliation, the CLI's bank simulator). Every IST rule is here, in the protocol so that the server (through
 * packages/server/src/domain/istPeriod.ts) and the CLI share it; nothing else computes the offset (ESLint refuses a
 * written one elsewhere: IST_OFFSETS in eslint.config.js).
 *
 * IST is UTC+05:30 all year (no daylight saving), so the offset is a constant and every IST day lasts 24 hours.
 */
const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;
/** IST written as an offset (ISO 8601). */
const IST_OFFSET = '+05:30';

/** An IST calendar day lasts 24 hours, every day (no daylight saving). */
export const IST_DAY_MS = 24 * 60 * 60 * 1000;

/** The IST calendar day of an instant, e.g. "2026-11-22". */
export function istDay(at: Date): string {
  return new Date(at.getTime() + IST_OFFSET_MS).toISOString().slice(0, 10);
}

/** The IST calendar month of an instant, e.g. "2026-11". */
export function istMonth(at: Date): string {
  return istDay(at).slice(0, 7);
}

/** An instant as IST wall time to the second, with the offset: "2026-11-22T15:04:05+05:30". */
export function istDateTime(at: Date): string {
  return `${new Date(at.getTime() + IST_OFFSET_MS).toISOString().slice(0, 19)}${IST_OFFSET}`;
}

/**
 * The instant an IST calendar day ("2026-11-22") begins, or null for text that is no such day. Console filters
 * take IST days; the database compares instants.
 */
export function istDayStart(day: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const at = new Date(`${day}T00:00:00${IST_OFFSET}`);
  return Number.isNaN(at.getTime()) || istDay(at) !== day ? null : at;
}

/** The instant an IST calendar day ends (the next day begins), or null for text that is no such day. */
export function istDayEnd(day: string): Date | null {
  const start = istDayStart(day);
  return start && new Date(start.getTime() + IST_DAY_MS);
}

/** The instant the IST calendar day of `at` began (00:00 IST). */
export function istDayStartOf(at: Date): Date {
  const sinceMidnight = (((at.getTime() + IST_OFFSET_MS) % IST_DAY_MS) + IST_DAY_MS) % IST_DAY_MS;
  return new Date(at.getTime() - sinceMidnight);
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The instant the IST hour of `at` began (hh:00 IST). IST is half an hour off UTC, so an IST hour starts at hh:30
 * UTC: charts bucketed by UTC hours would show their bars at :30 to a reader in India.
 */
export function istHourStartOf(at: Date): Date {
  const sinceHour = (((at.getTime() + IST_OFFSET_MS) % HOUR_MS) + HOUR_MS) % HOUR_MS;
  return new Date(at.getTime() - sinceHour);
}
