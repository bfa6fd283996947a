// Where a watch hears of changes: the system's file events (inotify on Linux, FSEvents on macOS,
// ReadDirectoryChangesW on Windows) through Node's fs.watch, or polling for the shares whose
// changes the system does not report (SMB, NFS, sshfs: --poll). Either way it only says
// "something changed at this path"; what changed is worked out by listing (./watch-pick.ts), so
// a lost or merged event costs a late look, never a lost file.
//
// Why fs.watch, one per folder on Linux, and not chokidar or @parcel/watcher: no dependency, and
// what a watched tree costs is one inotify watch per folder, whatever the files. Node's own
// recursive fs.watch on Linux (22, 24, 26) watches every file as well: measured here, 2,000 new
// files grew the process by 79 MB on Node 24, 43 MB on 22 and 14 MB on 26, against 6 MB for the
// same files in a folder watched on its own (bench/notes.md); chokidar also watches each file;
// @parcel/watcher ships a native build per platform. macOS and Windows watch a tree natively
// (one FSEvents stream, one ReadDirectoryChangesW handle): there the recursive option is used.
import { type FSWatcher, lstatSync, readdirSync, statSync, watch } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface WatchSource {
  close(): void;
}

export interface SourceOptions {
  /** Poll every `pollMs` instead of asking the system for events. */
  poll: boolean;
  pollMs: number;
  /** A change at this absolute path (a file or a folder; a root when the system lost track). */
  onChange: (path: string) => void;
  /** The system refused to watch (too many watches, a share): the caller may poll instead. */
  onError: (err: Error) => void;
}

export function watchFolders(roots: readonly string[], o: SourceOptions): WatchSource {
  return o.poll ? pollFolders(roots, o) : nativeWatch(roots, o);
}

function nativeWatch(roots: readonly string[], o: SourceOptions): WatchSource {
  return process.platform === 'linux' ? folderWatch(roots, o) : treeWatch(roots, o);
}

/** macOS, Windows: the system watches a tree as one. */
function treeWatch(roots: readonly string[], o: SourceOptions): WatchSource {
  const watchers: FSWatcher[] = [];
  const close = () => {
    for (const w of watchers.splice(0)) w.close();
  };
  try {
    for (const root of roots) {
      const w = watch(root, { recursive: true, persistent: true }, (_event, name) =>
        // No name: the system lost track of what changed (an overflowed queue): look at it all.
        o.onChange(name ? join(root, name.toString()) : root),
      );
      w.on('error', (err) => {
        close();
        o.onError(err);
      });
      watchers.push(w);
    }
  } catch (err) {
    close();
    throw err;
  }
  return { close };
}

/**
 * Linux: one inotify watch per folder (hidden folders are not walked, so not watched). A folder
 * that appears (made, or moved in whole) is watched from then on, with every folder under it; a
 * folder that goes is let go.
 */
function folderWatch(roots: readonly string[], o: SourceOptions): WatchSource {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  const letGo = (dir: string) => {
    for (const [path, w] of watchers)
      if (path === dir || path.startsWith(dir + sep)) {
        w.close();
        watchers.delete(path);
      }
  };
  const add = (dir: string, isRoot: boolean) => {
    if (closed || watchers.has(dir)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: true }, (event, name) => {
        const path = name ? join(dir, name.toString()) : dir;
        // A rename is something made, moved or removed: a folder among them changes what is watched.
        if (name && event === 'rename') {
          const st = lstatSync(path, { throwIfNoEntry: false });
          if (st?.isDirectory() && !basename(path).startsWith('.')) addTree(path, false);
          else if (!st) letGo(path);
        }
        o.onChange(path);
      });
    } catch (err) {
      // Gone before it could be watched: its parent's event says so.
      const code = (err as NodeJS.ErrnoException).code;
      if (!isRoot && (code === 'ENOENT' || code === 'ENOTDIR')) return;
      throw err;
    }
    w.on('error', (err) => {
      if (!statSync(dir, { throwIfNoEntry: false })) return letGo(dir);
      close();
      o.onError(err);
    });
    watchers.set(dir, w);
  };
  const addTree = (dir: string, isRoot: boolean) => {
    add(dir, isRoot);
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) addTree(join(dir, e.name), false);
  };
  const close = () => {
    closed = true;
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  try {
    for (const root of roots) addTree(root, true);
  } catch (err) {
    close();
    throw err;
  }
  return { close };
}

/**
 * Every `pollMs` each folder's names, sizes and modification times are compared with the last
 * look; a folder that differs is reported. Kept per folder: one number, not one per file.
 */
function pollFolders(roots: readonly string[], o: SourceOptions): WatchSource {
  let last = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async (report: boolean) => {
    const now = new Map<string, number>();
    for (const root of roots) await signatures(root, now);
    if (report) for (const [folder, sig] of now) if (last.get(folder) !== sig) o.onChange(folder);
    // A folder that is gone: its parent's signature changed too, which is what counts.
    last = now;
  };
  const loop = () => {
    timer = setTimeout(() => {
      look(true)
        .catch((err: unknown) => o.onError(err instanceof Error ? err : new Error(String(err))))
        .finally(() => {
          if (!stopped) loop();
        });
    }, o.pollMs);
    timer.unref?.();
  };
  void look(false).finally(() => {
    if (!stopped) loop();
  });
  return {
    close() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** Each folder under `dir` (itself included) → a hash of its entries' names, sizes and times. */
async function signatures(dir: string, out: Map<string, number>): Promise<void> {
  let turnedAt = performance.now();
  const stack = [dir];
  while (stack.length > 0) {
    const folder = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    let h = 0x811c9dc5;
    for (const e of entries) {
      const path = join(folder, e.name);
      const st = statSync(path, { throwIfNoEntry: false });
      if (st?.isDirectory()) {
        if (!e.name.startsWith('.')) stack.push(path);
        h = fnv(h, `d:${e.name}`);
      } else if (st) h = fnv(h, `f:${e.name}:${st.size}:${st.mtimeMs}`);
      // A share lists slowly: let the event loop turn (Ctrl-C, uploads) between slices.
      if (performance.now() - turnedAt > 20) {
        await nextTurn();
        turnedAt = performance.now();
      }
    }
    out.set(folder, h);
  }
}

/** FNV-1a over a string's UTF-16 code units: cheap, and a changed folder is all it must tell. */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
