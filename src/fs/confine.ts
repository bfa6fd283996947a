// Confinement: a path read from a file (an export's log, its upload manifest) names something
// inside one folder, or it is not used at all. The check every archive tool added after
// zip-slip: the path is resolved — `..`, an absolute path and symbolic links included — and what
// it resolves to must be the folder or under it. One helper for export, upload and download.
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep, win32 } from 'node:path';

/** A path that leads outside its folder, and why. */
export class OutsideFolderError extends Error {
  /** The path as it was read. */
  readonly path: string;
  /** "is absolute", "climbs out with ..", "leads through a symbolic link to …". */
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${JSON.stringify(path)} ${reason}`);
    this.name = 'OutsideFolderError';
    this.path = path;
    this.reason = reason;
  }
}

/**
 * Why `rel` cannot name something inside a folder, judged on its text alone (no disk): empty,
 * NUL, absolute (on any system: `/x`, `C:\x`, `\\server\x`), or climbing out with `..`.
 * Undefined when the text stays inside.
 */
export function textLeaves(rel: string): string | undefined {
  if (rel === '') return 'is empty';
  if (rel.includes('\0')) return 'holds a NUL character';
  if (isAbsolute(rel) || win32.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return 'is absolute';
  const inside = relative('/r', resolve('/r', rel.replaceAll('\\', '/')));
  if (inside === '..' || inside.startsWith(`..${sep}`)) return 'climbs out of the folder with ..';
  return undefined;
}

/** `inner` is `outer` or under it (both absolute and resolved). */
export function isWithin(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

/**
 * The absolute path `rel` names under `root`, once checked that it stays there: on its text
 * (textLeaves), then on the disk — the longest part of it that exists is resolved, symbolic
 * links followed, and must still be under `root` resolved. A path that does not exist yet is
 * judged by the folder it would be made in. `realRoot` (root resolved) spares resolving it again
 * for each path. Throws OutsideFolderError.
 */
export async function confine(root: string, rel: string, realRoot?: string): Promise<string> {
  const byText = textLeaves(rel);
  if (byText) throw new OutsideFolderError(rel, byText);
  realRoot ??= await realpath(root);
  const abs = join(root, rel);
  let probe = abs;
  for (;;) {
    let real: string;
    try {
      real = await realpath(probe);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && probe !== root && dirname(probe) !== probe) {
        // A link to nothing would be followed by whoever writes through it: refused like one that leaves.
        if ((await lstat(probe).catch(() => undefined))?.isSymbolicLink())
          throw new OutsideFolderError(rel, `leads through a broken symbolic link (${probe})`);
        probe = dirname(probe);
        continue;
      }
      if (code === 'ELOOP') throw new OutsideFolderError(rel, 'is a symbolic link loop');
      throw err;
    }
    if (!isWithin(realRoot, real))
      throw new OutsideFolderError(rel, `leads through a symbolic link to ${real}, outside the folder`);
    return abs;
  }
}
