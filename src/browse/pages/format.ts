// Values as a person reads them on the pages (the same words as `contentlib show`).
import { formatBytes } from '../../rules/rules.js';

/** `2026-01-01 12:00 UTC` (the page does not know the reader's time zone; the raw value is in <time>). */
export function formatWhen(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `4.2 MB (4,404,019 bytes)`. */
export function formatSize(bytes: number): string {
  return `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} bytes)`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds - m * 60);
  return `${seconds} s (${m} min ${s} s)`;
}

export const isVideoType = (type: string) => type === 'shortform' || type === 'longform';
