// The folders a watch has to look at, and when. The watcher's events only mark paths here; the
// watch loop takes what is due, re-plans it with the ordinary scan and plan, and runs the
// engine on what is new (src/cli/commands/upload-watch.ts). Memory holds one entry per folder
// changed in the last moments, never one per file uploaded. Pure: the clock is passed in.
import { dirname } from 'node:path';

/** A path to look at: a folder's own files (`deep` false) or everything under it (a folder that appeared). */
export interface DuePath {
  path: string;
  deep: boolean;
}

export interface WatchQueue {
  /** The watcher saw a change at `path` (a file or a folder) at `now`. */
  touch(path: string, now: number): void;
  /** Look at `path` again at `at`: a file not settled yet, an upload that failed, the first scan. */
  later(path: string, at: number, deep?: boolean): void;
  /** What is due at `now`, taken off the queue. */
  takeDue(now: number): DuePath[];
  /** When the next path is due; Infinity when none is. */
  nextDue(): number;
  /** Since when `folder` has had no change the watcher saw (when watching began, if none). */
  quietSince(folder: string): number;
  /** Paths waiting. */
  readonly size: number;
}

interface Entry {
  due: number;
  /** The first change since it was last taken: a folder that never goes quiet is still looked at. */
  first: number;
  deep: boolean;
}

/**
 * `settleMs`: a folder is looked at once it has been quiet that long; `maxWaitMs`: or at the
 * latest that long after its first change, so that a folder being filled for an hour is
 * uploaded as its files complete, not at the end.
 */
export function createWatchQueue(o: { settleMs: number; maxWaitMs: number; startedAt: number }): WatchQueue {
  const entries = new Map<string, Entry>();
  const lastChange = new Map<string, number>();
  const mark = (path: string, now: number, due: number, deep: boolean) => {
    const e = entries.get(path);
    if (!e) entries.set(path, { due, first: now, deep });
    else {
      e.due = due;
      e.deep ||= deep;
    }
  };
  return {
    touch(path, now) {
      const folder = dirname(path);
      const first = entries.get(folder)?.first ?? now;
      const due = Math.min(now + o.settleMs, first + o.maxWaitMs);
      mark(folder, now, due, false);
      // The path itself may be a folder that appeared (moved in whole): look under it all, then.
      mark(path, now, due, true);
      lastChange.set(dirname(path), now);
      lastChange.set(path, now);
    },
    later(path, at, deep = false) {
      const e = entries.get(path);
      if (e && e.due <= at) {
        e.deep ||= deep;
        return;
      }
      mark(path, at, at, deep);
    },
    takeDue(now) {
      const due: DuePath[] = [];
      for (const [path, e] of entries) {
        if (e.due > now) continue;
        entries.delete(path);
        due.push({ path, deep: e.deep });
      }
      // Changes long past say nothing any more: forget them, so memory stays flat.
      for (const [path, at] of lastChange) if (now - at > 2 * o.settleMs) lastChange.delete(path);
      return due;
    },
    nextDue() {
      let next = Infinity;
      for (const e of entries.values()) next = Math.min(next, e.due);
      return next;
    },
    quietSince(folder) {
      return lastChange.get(folder) ?? o.startedAt;
    },
    get size() {
      return entries.size;
    },
  };
}
