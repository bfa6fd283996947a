// Upload's progress on a terminal: the bars of ./tty-bars.ts, one per file in flight (name,
// percent, bytes, speed, ETA) and a total bar. Finished files scroll up as lines.
import { performance } from 'node:perf_hooks';
import type { SingleBar } from 'cli-progress';
import { formatBytes } from '../../rules/rules.js';
import type { FileRef, UploadEvent, UploadSummary } from '../../upload/send/events.js';
import { escapeName, escapeText } from '../../text/escape-name.js';
import type { IO } from '../io.js';
import { write } from './mode.js';
import type { ProgressListener } from './progress-shared.js';
import { flushed, formatMs, formatSpeed, retryLines } from './progress-shared.js';
import { itemRows, summaryLines } from './progress-summary.js';
import { truncate } from './table.js';
import { formatEta, keyOf, ttyBars } from './tty-bars.js';

const NAME_WIDTH = 24;

interface Live {
  bar: SingleBar;
  t0: number;
  sent: number;
  /** Bytes an earlier run stored (a resumed upload): shown as done, left out of the speed. */
  base: number;
}

function nameCell(file: FileRef): string {
  const name = file.role === 'thumbnail' ? `${escapeName(file.name)} (thumb)` : escapeName(file.name);
  return truncate(name, NAME_WIDTH).padEnd(NAME_WIDTH);
}

export function createTtyProgress(io: IO, clock: () => number = () => performance.now()): ProgressListener {
  const { multibar, live, log, end, stop: stopBars } = ttyBars<Live>(io);
  let total: SingleBar | undefined;
  let totalT0 = 0;
  let totalBytes = 0;
  let finishedBytes = 0;
  /** Of the total, bytes earlier runs stored: done, but not sent in this run's time. */
  let resumedBytes = 0;

  const updateTotal = () => {
    if (!total) return;
    let sent = finishedBytes;
    for (const l of live.values()) sent += l.sent;
    const ms = clock() - totalT0;
    const now = sent - resumedBytes;
    total.update(sent, {
      done: formatBytes(sent),
      // Files found in the library leave the total (`skipped`): its size says so too.
      size: formatBytes(totalBytes),
      speed: formatSpeed(now, ms),
      etaText: formatEta(totalBytes - sent, now, ms),
    });
  };

  const worthALine = retryLines();

  return {
    onEvent(event: UploadEvent) {
      const said = worthALine(event);
      switch (event.type) {
        case 'planned':
          // One file: its own bar says it all; a total bar would repeat it.
          if (event.files > 1) {
            totalT0 = clock();
            totalBytes = event.bytes;
            total = multibar.create(event.bytes, 0, {
              name: 'total'.padEnd(NAME_WIDTH),
              done: '0 B',
              size: formatBytes(event.bytes),
              speed: '',
              etaText: '--',
            });
          }
          break;
        case 'started': {
          const base = event.resumedFrom ?? 0;
          resumedBytes += base;
          if (base > 0)
            log(
              `↺ ${escapeName(event.file.name)}: resuming, ${formatBytes(base)} of ${formatBytes(event.file.size)} already stored by an earlier run`,
            );
          live.set(keyOf(event.file), {
            t0: clock(),
            sent: base,
            base,
            bar: multibar.create(event.file.size, base, {
              name: nameCell(event.file),
              done: formatBytes(base),
              size: formatBytes(event.file.size),
              speed: '',
              etaText: '--',
            }),
          });
          break;
        }
        case 'progress': {
          const l = live.get(keyOf(event.file));
          if (!l) break;
          l.sent = event.sent;
          const ms = clock() - l.t0;
          // Speed and ETA from the bytes this run sent: the resumed part took no time now.
          const now = event.sent - l.base;
          l.bar.update(event.sent, {
            done: formatBytes(event.sent),
            speed: formatSpeed(now, ms),
            etaText: formatEta(event.file.size - event.sent, now, ms),
          });
          updateTotal();
          break;
        }
        case 'uploaded':
          finishedBytes += event.file.size;
          end(event.file);
          updateTotal();
          if (event.file.role === 'thumbnail')
            log(`✓ ${escapeName(event.file.name)} (thumbnail) in ${formatMs(event.ms)}`);
          break;
        case 'completed': {
          const where = event.sortOrder === undefined ? '' : ` image ${event.sortOrder + 1}`;
          log(`✓ ${escapeName(event.file.name)} → ${event.itemType} ${event.itemId}${where}`);
          break;
        }
        case 'failed':
          if (event.file) {
            // Its bytes leave the total's count: so does what an earlier run had stored of it.
            resumedBytes -= live.get(keyOf(event.file))?.base ?? 0;
            end(event.file);
          }
          log(`✗ ${event.file ? `${escapeName(event.file.name)}: ` : ''}${escapeText(event.message)}`);
          break;
        case 'retrying': {
          const l = live.get(keyOf(event.file));
          if (l) {
            resumedBytes -= l.base;
            l.sent = 0;
            l.base = 0;
            l.t0 = clock();
          }
          if (said)
            log(
              `↻ ${escapeName(event.file.name)}: try ${event.attempt + 1} in ${formatMs(event.delayMs)} (${escapeText(event.reason)})`,
            );
          break;
        }
        case 'skipped':
          // Found in the library by its checksum: not part of the total any more. A large video
          // is found while its parts are being sent (src/upload/send/hash-alongside.ts): its bar goes.
          if (event.inLibrary) {
            resumedBytes -= live.get(keyOf(event.file))?.base ?? 0;
            end(event.file);
            totalBytes -= event.file.size;
            total?.setTotal(Math.max(1, totalBytes));
            updateTotal();
            log(`= ${escapeName(event.file.name)}: ${event.reason} ${event.itemId}`);
          }
          break;
        case 'notice':
          log(`Note: ${event.message}`);
          break;
      }
    },
    async finish(summary: UploadSummary) {
      stopBars();
      for (const row of itemRows(summary, io.stdoutIsTTY)) await write(io.stdout, `${row}\n`);
      for (const line of summaryLines(summary)) await write(io.stderr, `${line}\n`);
      await Promise.all([flushed(io.stdout), flushed(io.stderr)]);
    },
    async stop() {
      stopBars();
      await flushed(io.stderr);
    },
  };
}
