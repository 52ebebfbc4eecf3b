/** India Standard Time is UTC+05:30 all year (no daylight saving), so the offset is a constant. */
const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;

/** The IST calendar day of an instant, e.g. "2026-11-22". */
export function istDay(at: Date): string {
  return new Date(at.getTime() + IST_OFFSET_MS).toISOString().slice(0, 10);
}

/** The IST calendar month of an instant, e.g. "2026-11". */
export function istMonth(at: Date): string {
  return istDay(at).slice(0, 7);
}

/**
 * The instant an IST calendar day ("2026-11-22") begins, or null for text that is no such day. Console filters
 * take IST days; the database compares instants.
 */
export function istDayStart(day: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const at = new Date(`${day}T00:00:00+05:30`);
  return Number.isNaN(at.getTime()) || istDay(at) !== day ? null : at;
}
