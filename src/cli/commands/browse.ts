// contentlib browse: a local web view of the library the command resolves to (embedded, serve,
// or any remote), served from this process on 127.0.0.1 until Ctrl-C. The pages talk to this
// process only; it talks to the library through the same API client as every command, so the
// API key never reaches the browser. `show ID --web` starts it on the item's page.
import type { ApiClient } from '../../api/client.js';
import { type BrowseOptions, type RunningBrowse, startBrowse } from '../../browse/index.js';
import { formatProblem } from '../../rules/problem.js';
import { inspectCarouselImage, sendCarouselImage } from '../../upload/send/carousel-image.js';
import { inspectThumbnail, sendThumbnail } from '../../upload/send/thumbnail.js';
import { wireFile } from '../../upload/send/transfer.js';
import { openApi, retryPolicy } from '../api.js';
import type { CliContext, GlobalOptions } from '../context.js';
import { describeError } from '../error-messages.js';
import { RejectedFilesError } from '../errors.js';
import { THUMBNAIL_WHAT } from '../flags.js';
import type { IO } from '../io.js';
import { browserLaunch, openBrowser } from '../open-browser.js';
import { targetLine } from '../target.js';

export interface BrowseFlags {
  port?: number;
  /** commander's --no-open: false. */
  open?: boolean;
}

export interface BrowseDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C: browse stops. */
  signal: AbortSignal;
  options: Omit<BrowseOptions, 'port'>;
  /** Opens the URL; resolves to why it could not (said on stderr), or undefined. */
  open: (url: string) => Promise<string | undefined>;
  /** Told once the URL is printed (the CLI checks the library meanwhile). */
  onReady?: (browse: RunningBrowse) => void;
}

/** Serves until deps.signal aborts. The first line of stdout is the URL, token included. */
export async function runBrowse(flags: BrowseFlags, path: string, deps: BrowseDeps): Promise<void> {
  const browse = await startBrowse({ ...deps.options, ...(flags.port === undefined ? {} : { port: flags.port }) });
  try {
    const url = browse.launchUrl(path);
    deps.io.stdout.write(`${url}\n`);
    const launch = browserLaunch(url, deps.env, process.platform);
    if (flags.open !== false && launch !== 'none') {
      const problem = await deps.open(url);
      if (problem) deps.io.stderr.write(`Could not open a browser (${problem}); open the URL above yourself.\n`);
    }
    if (deps.io.stderrIsTTY) deps.io.stderr.write('contentlib browse: press Ctrl-C to stop\n');
    deps.onReady?.(browse);
    if (!deps.signal.aborted)
      await new Promise<void>((resolve) => deps.signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await browse.close();
  }
}

/** The library the command resolved to, as browse's pages and messages use it. */
async function browseOptions(
  ctx: CliContext,
  globals: GlobalOptions,
): Promise<{ client: ApiClient; options: Omit<BrowseOptions, 'port'> }> {
  const { client, target } = await openApi(ctx, globals, { previews: true });
  const describe = (err: unknown) => describeError(err, { targetNames: ctx.targetNames }).message;
  const setThumbnail = async (id: string, path: string, shownName: string, signal: AbortSignal) => {
    const thumb = await inspectThumbnail(path, shownName);
    if (!thumb.ok)
      throw new RejectedFilesError(
        thumb.problems.map(formatProblem),
        `Choose ${THUMBNAIL_WHAT}.`,
        'the item was not changed',
      );
    const thumbnailKey = await sendThumbnail(
      thumb.file,
      { api: client, now: ctx.now, sleep: ctx.sleep, policy: retryPolicy(ctx.env) },
      signal,
    );
    await client.patch(id, { thumbnailKey }, { signal });
  };
  // The same check and send as `edit --replace-image`, then the same endpoint.
  const replaceImage = async (id: string, fileId: string, path: string, shownName: string, signal: AbortSignal) => {
    const checked = await inspectCarouselImage(path, shownName);
    if (!checked.ok)
      throw new RejectedFilesError(
        checked.problems.map(formatProblem),
        'Choose a jpg, png or webp image of at most 20 MiB.',
        'the carousel was not changed',
      );
    // Named as the person's file, not the temp file browse received it into.
    const file = { ...checked.file, name: shownName };
    const deps = { api: client, now: ctx.now, sleep: ctx.sleep, policy: retryPolicy(ctx.env) };
    const key = await sendCarouselImage(file, deps, signal);
    await client.replaceImage(id, fileId, { key, ...wireFile(file) }, { signal });
  };
  const libraryName = targetLine(target.info).replace(/^\u2192 /, '');
  return { client, options: { library: client, describe, setThumbnail, replaceImage, libraryName } };
}

/** `contentlib browse`, and `contentlib show ID --web` with the item's page as `path`. */
export async function browseCommand(
  ctx: CliContext,
  globals: GlobalOptions,
  flags: BrowseFlags,
  path = '/',
): Promise<void> {
  const { client, options } = await browseOptions(ctx, globals);
  await runBrowse(flags, path, {
    io: ctx.io,
    env: ctx.env,
    signal: ctx.signal,
    options,
    open: (url) => openBrowser(url, ctx.env),
    // One small request once the URL is out: a refused key or an unreachable service is said
    // here at once, not only on the page (it does not delay the URL).
    onReady: () => {
      client.list({ limit: 1 }, { signal: ctx.signal }).catch((err: unknown) => {
        if (ctx.signal.aborted) return;
        const { message } = describeError(err, { targetNames: ctx.targetNames });
        ctx.io.stderr.write(
          `contentlib browse: the library did not answer as expected; the pages will say so too.\n${message}\n`,
        );
      });
    },
  });
  ctx.io.stderr.write('contentlib browse: stopped\n');
}
