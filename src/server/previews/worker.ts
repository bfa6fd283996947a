// Posters and previews are made in the background, after complete (issue 39): a completion only
// nudges this worker, and an item is listed and usable before its poster exists. The database is
// the queue (src/server/repo/previews.ts: the rows without one, newest first), so a server that
// restarts, or an older library, finds what is missing again: at start, after every complete,
// and every sweep interval. The work is bounded: `concurrency` jobs at a time, each killed after
// `timeoutMs`; a failure is recorded and tried again by a later pass, PREVIEW_TRIES times in all.
// A video's poster is made from its thumbnail when someone set one (a new one asks for a new
// poster), else from a frame. Without ffmpeg, videos without a thumbnail are left alone (not
// failed: a server given ffmpeg later makes theirs); browse then shows a frame of the video
// itself (docs/deploy.md, Posters and previews).
import type { Services } from '../context.js';
import { PREVIEW_CONTENT_TYPE, previewKeyOf } from '../object-keys.js';
import type { MissingPreview } from '../repo/previews.js';
import { SWEEP_INTERVAL_MS } from '../sweeper.js';
import { isUnavailable } from '../unavailable.js';
import { jpegPreview } from './image.js';
import { posterFrame } from './video.js';

export interface PreviewOptions {
  /** The ffmpeg to take video frames with; null: videos get no poster. */
  ffmpeg: string | null;
  /** Jobs at once (default 1: a server's upload traffic comes first). */
  concurrency?: number;
  /** One job's time limit, ffmpeg included (default 60 s). */
  timeoutMs?: number;
  /** How often the rows are looked at without a nudge (default: the sweep interval). */
  intervalMs?: number;
}

export interface PreviewWorker {
  /** Look for work now (after a complete); returns at once. */
  nudge(): void;
  /** Resolves when no pass is running or asked for (tests). */
  idle(): Promise<void>;
  /** Stops: running ffmpeg processes are killed, the pass ends. */
  stop(): Promise<void>;
}

const BATCH = 20;
/** Images larger than this are not read for a preview. */
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

export function startPreviews(s: Services, o: PreviewOptions, onError: (err: unknown) => void): PreviewWorker {
  const concurrency = Math.max(1, o.concurrency ?? 1);
  const timeoutMs = o.timeoutMs ?? 60_000;
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  let again = false;

  function nudge(): void {
    if (stopping.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await pass().catch(onError);
      } while (again && !stopping.signal.aborted);
    })().finally(() => (running = null));
  }

  /** Makes what is missing until nothing is left that this pass has not tried. */
  async function pass(): Promise<void> {
    const tried = new Set<string>();
    while (!stopping.signal.aborted) {
      const rows = await s.repo.missingPreviews(BATCH + tried.size, o.ffmpeg !== null);
      const batch = rows.filter((m) => !tried.has(`${m.role}:${m.id}:${m.key}`)).slice(0, BATCH);
      if (batch.length === 0) return;
      for (const m of batch) tried.add(`${m.role}:${m.id}:${m.key}`);
      let next = 0;
      const lane = async () => {
        while (next < batch.length && !stopping.signal.aborted) await job(batch[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batch.length) }, lane));
    }
  }

  async function job(m: MissingPreview): Promise<void> {
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]);
    const key = previewKeyOf(m.key);
    let jpeg: Buffer;
    try {
      // A video's poster: its thumbnail, when someone chose one, else a frame of it.
      const source =
        m.role === 'image'
          ? await imageBytes(m.key)
          : m.thumbnailKey
            ? await imageBytes(m.thumbnailKey)
            : await videoFrame(m, signal);
      jpeg = await jpegPreview(source);
      if (signal.aborted) throw new Error(`no preview within ${timeoutMs} ms`);
      await s.deps.storage.putObject(key, jpeg, PREVIEW_CONTENT_TYPE);
    } catch (err) {
      // A store or database that is down, or a server that is stopping: not the file's fault.
      if (stopping.signal.aborted || isUnavailable(err)) return;
      await s.repo.previewFailed(m, err instanceof Error ? err.message : String(err));
      return;
    }
    // Deleted or replaced while it was made: its row no longer names the file, and the preview goes.
    if (!(await s.repo.recordPreview(m, key))) await s.deps.storage.delete(key);
  }

  async function videoFrame(m: MissingPreview, signal: AbortSignal): Promise<Buffer> {
    const { storage, disk, now } = s.deps;
    const input = disk
      ? disk.pathOf(m.key)
      : await storage.presignGet({ key: m.key, expiresAt: new Date(now().getTime() + timeoutMs + 60_000) });
    return posterFrame(o.ffmpeg!, input, m.durationSeconds, signal);
  }

  async function imageBytes(key: string): Promise<Buffer> {
    const head = await s.deps.storage.head(key);
    if (!head) throw new Error('the stored file is gone');
    if (head.size > MAX_IMAGE_BYTES) throw new Error(`${head.size} bytes is too large to read for a preview`);
    return s.deps.storage.readRange(key, 0, head.size, head.etag);
  }

  nudge();
  const timer = setInterval(nudge, o.intervalMs ?? SWEEP_INTERVAL_MS);
  timer.unref();

  return {
    nudge,
    async idle() {
      while (running) await running;
    },
    async stop() {
      clearInterval(timer);
      stopping.abort(new Error('the server is stopping'));
      while (running) await running;
    },
  };
}
