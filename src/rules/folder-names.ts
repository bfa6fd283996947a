// The names of the files that carry an item's metadata in a folder: the sidecars beside the
// media and the manifest of an export folder. Upload reads them (src/upload/plan/scan.ts,
// src/upload/plan/decide.ts, src/upload/plan/plan.ts) and export writes them (src/download/export-folder.ts),
// so a folder export wrote is one upload reads back by the same rule.
import { basename, dirname, join } from 'node:path';

/** The upload manifest an export folder holds (src/download/export.ts writes it). */
export const EXPORT_MANIFEST = 'contentlib.json';

/** Names a carousel folder's sidecar can have: carousel.json, or the folder's own name + .json. */
export function carouselSidecarNames(dir: string): string[] {
  return [join(dir, 'carousel.json'), join(dir, `${basename(dir)}.json`)];
}

/** A video's sidecar: the video's whole file name plus .json ("clip.mp4.json"). */
export function videoSidecarName(videoPath: string): string {
  return join(dirname(videoPath), `${basename(videoPath)}.json`);
}
