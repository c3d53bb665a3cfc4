/**
 * ISO 8601 date-times with an explicit offset, as requests give them (`2030-01-31T09:00:00Z`,
 * `2030-01-31T10:00:00.5+01:00`). Date.parse alone accepts "2025" or "May 1", and rolls
 * impossible dates over (`2030-02-30` becomes March 2): here every field must be in its range,
 * the day included.
 */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant as a UTC ISO string, or undefined when `value` is not such a date-time. */
export function parseTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TIMESTAMP.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = match.slice(1).map((part) => (part === undefined ? undefined : Number(part)));
  const valid =
    month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysIn(year!, month!) && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 23 && offsetMinutes! <= 59;
  return valid ? new Date(value).toISOString() : undefined;
}
