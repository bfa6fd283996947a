// `contentlib upload --watch` as a child process of the built binary, for the hot-folder tests:
// its NDJSON lines as they come, waiting for one, Ctrl-C (SIGINT) and kill -9. Also unique
// media to drop into a watched folder: the library knows files by their bytes, so each test's
// files must be its own.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32, deflateSync } from 'node:zlib';
import { BIN, FIXTURES } from './paths.js';
import { childEnv } from './serve-process.js';

export interface WatchProcess {
  child: ChildProcess;
  /** Every NDJSON object printed so far. */
  lines(): Array<Record<string, unknown>>;
  stderr(): string;
  /** Resolves once `pred` holds for the lines printed; rejects after `ms` (with what was printed). */
  until(pred: (lines: Array<Record<string, unknown>>) => boolean, ms?: number): Promise<void>;
  /** Ctrl-C, then the exit code. */
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

export function startWatch(args: string[], env: Record<string, string>): WatchProcess {
  const child = spawn('node', [BIN, 'upload', '--watch', '--json', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const parsed: Array<Record<string, unknown>> = [];
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    const cut = out.lastIndexOf('\n');
    if (cut < 0) return;
    for (const line of out.slice(0, cut).split('\n'))
      if (line) parsed.push(JSON.parse(line) as Record<string, unknown>);
    out = out.slice(cut + 1);
  });
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return {
    child,
    lines: () => parsed,
    stderr: () => err,
    async until(pred, ms = 30_000) {
      const end = Date.now() + ms;
      while (!pred(parsed)) {
        if (Date.now() > end || child.exitCode !== null)
          throw new Error(
            `upload --watch did not get there (exit ${child.exitCode}):\n${JSON.stringify(parsed)}\n${err}`,
          );
        await sleep(50);
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The `completed` events printed so far for files named `name`. */
export function completedOf(lines: Array<Record<string, unknown>>, name?: string): Array<Record<string, unknown>> {
  return lines.filter(
    (l) => l.type === 'completed' && (name === undefined || (l.file as { name: string }).name === name),
  );
}

/** A small PNG of its own: 8×8 pixels of random colours, so no two are the same bytes. */
export function uniquePng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(8, 0);
  ihdr.writeUInt32BE(8, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const rows = Buffer.concat(Array.from({ length: 8 }, () => Buffer.concat([Buffer.from([0]), randomBytes(24)])));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Writes `bytes` to `path` in `pieces` writes, `gapMs` apart: an editor exporting, a slow copy. */
export async function writeSlowly(path: string, bytes: Buffer, pieces: number, gapMs: number): Promise<void> {
  const handle = await open(path, 'w');
  try {
    const step = Math.ceil(bytes.length / pieces);
    for (let at = 0; at < bytes.length; at += step) {
      await handle.write(bytes, at, Math.min(step, bytes.length - at), at);
      await handle.sync();
      if (at + step < bytes.length) await sleep(gapMs);
    }
  } finally {
    await handle.close();
  }
}

/**
 * A video of its own, `size` bytes: fixtures/video/faststart.mp4 (moov before mdat, 5 s) with its
 * mdat box grown by random bytes. Its header stays valid, and no two are the same bytes.
 * `fixtures`: where the fixtures are (the bench runs compiled, from elsewhere).
 */
export function uniqueVideo(size: number, fixtures = FIXTURES): Buffer {
  const base = readFileSync(join(fixtures, 'video/faststart.mp4'));
  for (let offset = 0; offset + 8 <= base.length;) {
    const boxSize = base.readUInt32BE(offset);
    if (base.toString('latin1', offset + 4, offset + 8) === 'mdat') {
      const out = Buffer.concat([base, randomBytes(size - base.length)]);
      out.writeUInt32BE(size - offset, offset);
      return out;
    }
    if (boxSize < 8) break;
    offset += boxSize;
  }
  throw new Error('fixtures/video/faststart.mp4 has no mdat box');
}
