// The duration of the MP4/MOV video at a path: a shorthand for probeVideoFile, kept for callers
// that need only the seconds. It refuses what probeVideo refuses (audio only, no duration, …).
import { probeVideoFile } from './probe.js';

/** Seconds of video in the MP4/MOV file at `path`; throws MediaError when they cannot be read. */
export async function readVideoDuration(path: string): Promise<number> {
  return (await probeVideoFile(path)).durationSeconds;
}
