// A video's poster frame, by the ffmpeg the server found (Debian's, on PATH, or `--ffmpeg PATH`).
// Not the first frame, which is often black (a fade in; immich#9784): ffmpeg's `thumbnail` filter
// picks, among the frames of the first seconds, the one closest to their average picture; a
// frame that is still blank is replaced by one from the middle of the video. ffmpeg reads the
// stored file itself: its path on the disk store, a signed GET URL on S3 (it reads over HTTP,
// seeking with ranges), so no copy is made.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { isBlank, pictureOf } from './image.js';

/** The first seconds the thumbnail filter looks at (a fade in is over by then). */
const WINDOW_SECONDS = 6;
/** A frame is a PNG on ffmpeg's stdout, never larger than this (it is scaled down first). */
const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** The ffmpeg on PATH, or null when there is none. */
export async function findFfmpeg(path = process.env.PATH ?? ''): Promise<string | null> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'ffmpeg');
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** ffmpeg's arguments for one frame of `input` as a PNG on stdout: from `from` seconds, the best of the window. */
export function frameArgs(input: string, from: number, window: number): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    ...(from > 0 ? ['-ss', from.toFixed(3)] : []),
    '-t',
    String(window),
    '-i',
    input,
    '-an',
    '-sn',
    '-dn',
    // The filter keeps the frames of a batch (100 by default) to compare them: scaled first, small.
    '-vf',
    "scale='min(480,iw)':-2,thumbnail=n=90,format=rgb24",
    '-frames:v',
    '1',
    '-f',
    'image2pipe',
    '-c:v',
    'png',
    'pipe:1',
  ];
}

/** Runs ffmpeg; its stdout, or an Error saying what it said on stderr. `signal` kills it. */
export function runFfmpeg(ffmpeg: string, args: readonly string[], signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FRAME_BYTES) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => reject(signal.aborted ? new Error(`ffmpeg stopped: ${String(signal.reason)}`) : err));
    child.on('close', (code) => {
      if (code === 0 && size > 0 && size <= MAX_FRAME_BYTES) resolve(Buffer.concat(out));
      else
        reject(
          new Error(
            size > MAX_FRAME_BYTES
              ? 'ffmpeg wrote a frame larger than expected'
              : `ffmpeg exited with ${code ?? 'a signal'}${stderr ? `: ${stderr.trim().split('\n').pop()}` : ' and no frame'}`,
          ),
        );
    });
  });
}

/**
 * The poster frame of the video at `input` (a path or a URL), as a PNG: the best frame of the
 * first seconds; when that one is blank, the best around the middle; when both are, the first
 * (a video that is black throughout has a black poster).
 */
export async function posterFrame(
  ffmpeg: string,
  input: string,
  durationSeconds: number | null,
  signal: AbortSignal,
): Promise<Buffer> {
  const first = await runFfmpeg(ffmpeg, frameArgs(input, 0, WINDOW_SECONDS), signal);
  if (!isBlank(await pictureOf(first))) return first;
  const duration = durationSeconds ?? 0;
  if (duration <= WINDOW_SECONDS) return first;
  const middle = await runFfmpeg(ffmpeg, frameArgs(input, duration / 2, WINDOW_SECONDS), signal).catch(() => null);
  return middle && !isBlank(await pictureOf(middle)) ? middle : first;
}
