// "3 minutes ago" for tables, from the injected clock so tests are deterministic.
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

// Made on first use: building it loads ICU data (~15 ms), which plain and JSON output never need.
let rtf: Intl.RelativeTimeFormat | undefined;

export function relativeTime(iso: string, now: Date): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((at - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  for (const [unit, size] of UNITS) {
    if (abs >= size)
      return (rtf ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' })).format(
        Math.trunc(seconds / size),
        unit,
      );
  }
  return 'just now';
}
