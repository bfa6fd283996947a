// The bars on a terminal that upload's and download's progress share (progress-tty.ts,
// download-progress.ts): one cli-progress multibar on stderr, redrawn at most 10 times a second
// by cli-progress's own timer (events only update numbers), a bar per file in flight, and the
// lines that scroll up above the bars.
import cliProgress from 'cli-progress';
import type { MultiBar, SingleBar } from 'cli-progress';
import type { IO } from '../io.js';

// The ETA is ours (etaText, formatEta in progress-tty.ts): cli-progress's own says "NFs" until
// its buffer fills; ours says "--" until bytes have moved.
const FORMAT = '{name} {bar} {percentage}% {done}/{size} {speed} ETA {etaText}';

/** A file as both kinds of progress name it: by its role (main file or thumbnail) and path. */
export function keyOf(file: { role: string; path: string }): string {
  return `${file.role}:${file.path}`;
}

/** "--" until there is a speed to divide by, then "12s", "3m05s", "1h02m". */
export function formatEta(remaining: number, sent: number, ms: number): string {
  if (sent <= 0 || ms <= 0) return '--';
  if (remaining <= 0) return '0s';
  const s = Math.ceil((remaining * ms) / sent / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface TtyBars<L extends { bar: SingleBar }> {
  multibar: MultiBar;
  /** What is shown of each file in flight (its bar first), by keyOf. */
  live: Map<string, L>;
  /** A line above the bars. */
  log(line: string): void;
  /** Removes the file's bar, when it has one. */
  end(file: { role: string; path: string }): void;
  /** Stops drawing, after the lines still queued are printed. */
  stop(): void;
}

export function ttyBars<L extends { bar: SingleBar }>(io: IO): TtyBars<L> {
  const multibar: MultiBar = new cliProgress.MultiBar({
    stream: io.stderr,
    fps: 10,
    format: FORMAT,
    barsize: 20,
    hideCursor: true,
    clearOnComplete: true,
    autopadding: true,
    barCompleteChar: '█',
    barIncompleteChar: '░',
  });
  const live = new Map<string, L>();
  return {
    multibar,
    live,
    // A log line is written over the top bar's line: clear what is left of the bar after it.
    log: (line) => multibar.log(`${line}\u001b[0K\n`),
    end(file) {
      const l = live.get(keyOf(file));
      if (!l) return;
      live.delete(keyOf(file));
      multibar.remove(l.bar);
    },
    stop() {
      multibar.update(); // prints the lines still queued in its log buffer
      multibar.stop();
    },
  };
}
