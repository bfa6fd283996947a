// When a file in a watched folder is complete enough to upload: it has stopped growing for the
// settle time (chokidar's awaitWriteFinish: size stable for N ms). Pure: the file's stat, what
// was seen of it before and the clock in; ready, or when to look again, out.

/** A file's size and modification time, as stat gives them. */
export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** What was seen of a file that was not ready yet, and when. */
export interface Observation extends FileStat {
  at: number;
}

export type Readiness = { ready: true } | { ready: false; recheckInMs: number; seen: Observation };

/**
 * Ready when either:
 * - its folder has had no change for `settleMs` (`quietSince`: the last event the watcher saw
 *   there, or when watching began) and the file was last written at least `settleMs` ago. Both,
 *   because a copy that keeps the original's modification time (cp -p, a camera import) looks
 *   old while it is still being written: only the watcher's silence says it stopped;
 * - or it had the same size and modification time `settleMs` ago already (a share whose clock
 *   is off, a folder whose changes the watcher cannot see).
 */
export function readiness(
  now: number,
  st: FileStat,
  earlier: Observation | undefined,
  quietSince: number,
  settleMs: number,
): Readiness {
  const quietFor = now - st.mtimeMs;
  const folderQuietFor = now - quietSince;
  if (quietFor >= settleMs && folderQuietFor >= settleMs) return { ready: true };
  const same = earlier !== undefined && earlier.size === st.size && earlier.mtimeMs === st.mtimeMs;
  if (same && now - earlier.at >= settleMs) return { ready: true };
  const seen = same ? earlier : { size: st.size, mtimeMs: st.mtimeMs, at: now };
  // Look again when either rule can say ready.
  const byQuiet = quietFor >= 0 ? Math.max(settleMs - quietFor, settleMs - folderQuietFor) : Infinity;
  const byStable = settleMs - (now - seen.at);
  return { ready: false, recheckInMs: Math.max(1, Math.ceil(Math.min(byQuiet, byStable))), seen };
}
