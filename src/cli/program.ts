// The one registration file: every command, its flags, help and examples, and the one place
// command modules are loaded lazily. A command's module (src/cli/commands/*.ts) imports what it
// needs statically and loads only when that command runs, so `--version` and `--help` load none
// of them: only this file, commander, and the light flags.ts and rules.
import { Command, Option } from 'commander';
import { CONTENT_TYPES, LIST_LIMITS, STATUSES } from '../rules/rules.js';
import type { CliContext, GlobalOptions } from './context.js';
import { ROLE_NAMES, SCOPES } from '../api/scopes.js';
import {
  CONFIG_KEYS,
  DEFAULT_CONCURRENCY,
  SHELLS,
  THUMBNAIL_WHAT,
  UPLOAD_RULES_HELP,
  collect,
  parseConcurrency,
  parseSeconds,
  parsePartConcurrency,
  DEFAULT_PART_CONCURRENCY,
  parseCount,
  parsePlatforms,
  parseDuration,
  parsePort,
  parseRetryFor,
  QUERY_HELP,
} from './flags.js';
import { DEFAULT_RIDE_OUT_MS } from '../api/retry.js';
import { DEFAULT_PUT_LIMITS, DEFAULT_TIMEOUTS, TEAM_RATE_LIMIT, UNAUTHENTICATED_RATE_LIMIT } from '../server/limits.js';
import { hashtagSpaceWarnings } from './metadata-flags.js';
import { PLATFORM_IDS, PLATFORM_RULES_VERSION } from '../rules/platforms.js';

/**
 * The action of a command, from its module, loaded when the command runs. Commander calls an
 * action with the command's arguments, its options and the command itself; the command's
 * function gets the context, the global flags, then the arguments and options.
 */
function lazy<M, A extends unknown[]>(
  ctx: CliContext,
  load: () => Promise<M>,
  pick: (m: M) => (ctx: CliContext, globals: GlobalOptions, ...args: A) => Promise<unknown> | unknown,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const command = args[args.length - 1] as Command;
    const run = pick(await load());
    await run(ctx, command.optsWithGlobals<GlobalOptions>(), ...(args.slice(0, -1) as A));
  };
}

export function buildProgram(ctx: CliContext, version: string): Command {
  const program = new Command('contentlib')
    .description(
      'Upload and manage media in a Content Library Service. With no remote configured, works on an embedded library on this machine.',
    )
    .version(version, '-V, --version', 'print the version')
    .addOption(
      new Option(
        '--json',
        'machine-readable output (JSON; NDJSON events for upload); --json id,title keeps only those fields (docs/cli.md)',
      ),
    )
    // `--json id,title` arrives here split off by src/cli/argv.ts (see there why).
    .addOption(new Option('--json-fields <fields>').hideHelp())
    .addOption(new Option('--jq <expr>', 'filter the JSON output with a jq expression (implies --json)'))
    .addOption(new Option('-q, --quiet', 'print nothing on stderr but errors'))
    // The environment (CONTENTLIB_PROFILE, CONTENTLIB_BASE_URL, CONTENTLIB_API_KEY) is read by
    // resolveTarget (src/config/resolve.ts), not merged here: flags must win over it, and a flag's
    // base URL must never be paired with an unrelated key.
    .addOption(new Option('--profile <name>', 'use this saved profile (see contentlib login; env: CONTENTLIB_PROFILE)'))
    .addOption(
      new Option('--base-url <url>', 'service base URL, e.g. https://content.example.com (env: CONTENTLIB_BASE_URL)'),
    )
    .addOption(
      new Option(
        '--api-key <key>',
        'API key (discouraged: it lands in your shell history; use contentlib login or CONTENTLIB_API_KEY)',
      ),
    )
    .addOption(new Option('--embedded', 'use the embedded library on this machine, even if a remote is configured'))
    .addOption(new Option('--no-color', 'no colors (also NO_COLOR=1)'))
    .addOption(new Option('--verbose', 'trace each HTTP request and response (the API key is redacted)'))
    .addOption(
      new Option(
        '--retry-for <seconds>',
        `ride out a service that is down or restarting for this long before failing (default ${DEFAULT_RIDE_OUT_MS / 1000}; 0: do not; env: CONTENTLIB_RETRY_FOR)`,
      ).argParser((value: string) => parseRetryFor(value)),
    )
    // Every subcommand's --help lists these global flags in their own section.
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      // Commander's own parse errors ("error: unknown option") are printed by main.ts, in the
      // same style as every other error ("Error: …" and what to do).
      outputError: () => {},
    })
    .exitOverride()
    .hook('preAction', async (_program, action) => {
      const globals = action.optsWithGlobals<GlobalOptions>();
      if (globals.quiet) (await import('./output/quiet.js')).silenceStderr(ctx.io);
      // The flag is the variable for this run: every retry loop of the command (the API
      // client's, the storage PUT's) reads one setting, retryPolicy in src/cli/api.ts.
      if (globals.retryFor !== undefined) ctx.env.CONTENTLIB_RETRY_FOR = String(globals.retryFor);
      // upload and edit: a hashtag written with a space inside becomes several; say so first.
      const { hashtags, addHashtag } = action.opts<{ hashtags?: string; addHashtag?: string[] }>();
      const warnings = [
        ...(hashtags === undefined ? [] : hashtagSpaceWarnings('--hashtags', hashtags)),
        ...(addHashtag ?? []).flatMap((v) => hashtagSpaceWarnings('--add-hashtag', v)),
      ];
      for (const w of warnings) ctx.io.stderr.write(`${w}\n`);
    });

  defineUpload(program, ctx);
  defineLs(program, ctx);
  defineShow(program, ctx);
  defineCheck(program, ctx);
  defineEdit(program, ctx);
  defineRm(program, ctx);
  defineDownload(program, ctx);
  defineExport(program, ctx);
  defineBrowse(program, ctx);
  defineLogin(program, ctx); // login and logout
  defineAuth(program, ctx);
  defineConfig(program, ctx);
  defineCompletion(program, ctx);
  defineServe(program, ctx);
  defineKeys(program, ctx);
  defineLog(program, ctx);
  defineUndo(program, ctx);
  return program;
}

function defineUpload(program: Command, ctx: CliContext): void {
  program
    .command('upload')
    .description('upload videos and images: each video one item, the images of a folder one carousel')
    .argument('[paths...]', 'files, folders or globs (quote globs: "clips/*.mp4")')
    .addOption(new Option('--type <type>', 'make every item this type (checked strictly)').choices(CONTENT_TYPES))
    .option('--carousel', 'put all the given images into one carousel, wherever they are')
    .option('--to <id>', 'append the images to this existing carousel')
    .option('--title <text>', 'title of the item (one item only; use sidecars or --manifest for more)')
    .option('--description <text>', 'description')
    .option('--hashtags <list>', 'hashtags: "summer, #sale"')
    .addOption(new Option('--status <status>', 'status after upload (default: draft)').choices(STATUSES))
    .option('--platform <path=value>', 'a platform setting, e.g. youtube.visibility=private (repeatable)', collect)
    .option('--manifest <file>', 'a JSON list of items with their files and metadata (for CI)')
    .option('--thumbnail <image>', 'thumbnail image for a single video')
    .addOption(
      new Option('--concurrency <n>', 'files sent at once').default(DEFAULT_CONCURRENCY).argParser(parseConcurrency),
    )
    .addOption(
      new Option('--part-concurrency <n>', 'parts of large files sent at once, in all (when the service offers parts)')
        .default(DEFAULT_PART_CONCURRENCY)
        .argParser(parsePartConcurrency),
    )
    .option('--dry-run', 'check everything and print the plan, with what the library has already; send nothing')
    .option('--force', 'upload again what was uploaded before (journal) or the library already holds')
    .option(
      '--update-metadata',
      'for items already in the library: apply where the local metadata differs from it (default: only report it)',
    )
    .option('--strict', 'refuse the upload (exit 2) when a media file in a folder would be skipped (HEIC, GIF, …)')
    .option(
      '--skip-invalid',
      'leave out the files that break a rule and upload the rest (exit 3, listing what was left out)',
    )
    .option('--split', 'make a folder of more than 10 images into several carousels of at most 10, in order')
    .addOption(
      new Option(
        '--for <platforms>',
        `check every file for these platforms before sending (${PLATFORM_IDS.join(', ')}); kept in platformSettings.contentlib.targets`,
      ).argParser(parsePlatforms),
    )
    .option('--watch', 'then keep watching the folders and upload what appears or changes, until Ctrl-C')
    .addOption(
      new Option('--settle <seconds>', 'with --watch: send a file once unchanged this long (default: 3)').argParser(
        parseSeconds('--settle'),
      ),
    )
    .addOption(
      new Option(
        '--poll [seconds]',
        'with --watch: look every few seconds (default: 5) instead of asking the system (network shares)',
      ).argParser(parseSeconds('--poll')),
    )
    .addHelpText(
      'after',
      `
${UPLOAD_RULES_HELP} Every file is checked before a byte is sent.
Re-running the same command skips what was uploaded, on any machine: what the library already
holds (the same bytes, found by SHA-256) is not sent again, and a folder that gained photos
appends them to its carousel; this machine's journal skips what it knows without reading it.
An item already in the library is never changed: where the local metadata (flags, sidecars,
manifest) differs from it, the upload says so, and --update-metadata applies those differences.
Files in a folder that are not uploaded (HEIC, GIF, MKV, text, links leaving the folder) are listed
as skipped, with what to convert them to; --strict refuses the upload for any skipped media file.

Examples:
  contentlib upload fixtures/demo
  contentlib upload talk.mp4 --type longform --title "Keynote" --thumbnail cover.jpg --platform youtube.visibility=private
  contentlib upload --manifest release.json --json > upload-log.ndjson
  contentlib upload clips --jq 'select(.type == "summary") | .items[].id'
  contentlib upload --watch ~/Exports --settle 5`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/upload.js'),
        (m) => m.uploadCommand,
      ),
    );
}

function defineLs(program: Command, ctx: CliContext): void {
  program
    .command('ls')
    .description('list content items, newest first; a query or the search flags narrow the list')
    .argument('[query...]', 'a query: status:draft #summersale created:>7d by:ci-bot northwind (see below)')
    .addOption(new Option('--status <status>', 'only items with this status').choices(STATUSES))
    .addOption(new Option('--type <type>', 'only items of this type').choices(CONTENT_TYPES))
    .option('--search <text>', 'only items whose title contains this text (case-insensitive)')
    .option('--hashtag <tag>', 'only items with this hashtag (repeatable: all must match)', collect)
    .option('--since <when>', 'created at or after: 7d, 12h, 2w, or a date (2026-11-01)')
    .option('--until <when>', 'created at or before: a date (through that day), a time, or 7d (longer ago)')
    .option('--updated-since <when>', 'changed last at or after (as --since)')
    .option('--updated-until <when>', 'changed last at or before (as --until)')
    .option('--by <key>', 'uploaded by this key (its name or id)')
    .option('--text <words>', 'free text over title, description and hashtags, best match first')
    .option('--sort <field>', 'created, updated or title, with -asc or -desc (e.g. title-asc)')
    .option('--min-duration <seconds>', 'videos at least this long (30, 7.5, 2m)')
    .option('--max-duration <seconds>', 'videos at most this long')
    .option(
      '--limit <n>',
      `how many items (default ${LIST_LIMITS.defaultLimit}; above ${LIST_LIMITS.maxLimit} is fetched in several pages)`,
      parseCount('--limit', 1),
    )
    .option('--offset <n>', 'skip this many items first', parseCount('--offset', 0))
    .option('--all', 'every item, page by page (ignores --limit)')
    .addHelpText(
      'after',
      `
${QUERY_HELP}

Examples:
  contentlib ls --status draft --type carousel
  contentlib ls 'status:draft #summersale created:>7d northwind sneaker'
  contentlib ls --hashtag summersale --since 7d --by ci-bot
  contentlib ls 'created:2026-11-01..2026-11-20 sort:title-asc'
  contentlib ls --search "summer sale" --limit 200
  contentlib ls --all --json > library.json
  contentlib ls --status failed --json id,title
  contentlib ls --type carousel --jq '.[] | select(.fileCount > 5) | .id'`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/ls.js'),
        (m) => m.lsCommand,
      ),
    );
}

function defineShow(program: Command, ctx: CliContext): void {
  program
    .command('show')
    .description('show one item: every field, platform settings, and a carousel’s images in order')
    .argument('<id>', 'the item id (see contentlib ls)')
    .option('--web', 'open the item’s page in the browser instead (starts contentlib browse; Ctrl-C stops it)')
    .addHelpText(
      'after',
      `
Examples:
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --web
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --json id,title,status
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --jq '.files[].fileName'`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/show.js'),
        (m) => m.showCommand,
      ),
    );
}

function defineCheck(program: Command, ctx: CliContext): void {
  program
    .command('check')
    .description('will these platforms take it? each file or item against each platform’s published limits')
    .argument('<paths-or-ids...>', 'files, folders, or item ids (an item is judged by the facts the library measured)')
    .addOption(new Option('--for <platforms>', `the platforms: ${PLATFORM_IDS.join(', ')}`).argParser(parsePlatforms))
    .addHelpText(
      'after',
      `
Without --for, an item is checked for the platforms kept in its platformSettings.contentlib.targets
(set by upload --for). A shape a platform shows with bars or a crop is a warning; anything it
refuses is a failure. Exit status: 0 when everything passes (warnings allowed), 1 when any file
fails a platform or cannot be read, 2 for a bad argument, 5 when an id is not in the library.
The limits are the platforms' published ones as of ${PLATFORM_RULES_VERSION} (docs/cli.md).

Examples:
  contentlib check clip.mp4 --for reels,shorts,tiktok
  contentlib check exports/ --for reels --json
  contentlib check 3f0c2a4e --for instagram-feed`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/check.js'),
        (m) => m.checkCommand,
      ),
    );
}

function defineEdit(program: Command, ctx: CliContext): void {
  program
    .command('edit')
    .description(
      'change an item’s title, description, status, hashtags or platform settings, or a carousel’s images; --where changes every item a query matches',
    )
    .argument('[id]', 'the item id (see contentlib ls); or --where QUERY')
    .option('--where <query>', 'change every item this query matches, as one batch (see contentlib ls --help)')
    .option('-y, --yes', 'with --where: do not ask (required when not on a terminal)')
    .option('--title <text>', 'new title')
    .option('--description <text>', 'new description ("" clears it)')
    .addOption(new Option('--status <status>', 'new status').choices(STATUSES))
    .option('--hashtags <list>', 'replace all hashtags: "summer, #sale" ("" clears them)')
    .option('--add-hashtag <tag>', 'add a hashtag (repeatable)', collect)
    .option('--remove-hashtag <tag>', 'remove a hashtag (repeatable)', collect)
    .option(
      '--platform <path=value>',
      'set one platform setting, e.g. youtube.visibility=private; value read as JSON when it parses; =null removes it (repeatable)',
      collect,
    )
    .option('--platform-json <file>', 'merge platform settings from a JSON file (- for stdin)')
    .option('--replace-platform', 'replace all platform settings instead of merging into them')
    .option('--thumbnail <image>', `set the thumbnail: ${THUMBNAIL_WHAT}`)
    .option(
      '--order <list>',
      'a carousel’s images in a new order: positions from 1 (as show prints them) or file names, e.g. 3,1,2; images left out follow those named, in their order',
    )
    .option(
      '--remove-image <which>',
      'remove one image of a carousel (a position from 1, or a file name); never below 2',
    )
    .option(
      '--replace-image <which-and-file...>',
      'put a new image (jpg, png, webp) in one image’s place: which (a position from 1, or a file name), then the file',
    )
    .option(
      '--dry-run',
      'with --where: show what would change; with --order, --remove-image or --replace-image: the carousel as it would be; change nothing',
    )
    .addHelpText(
      'after',
      `
A carousel's images are changed one flag per run (each moves the positions the others read), not
together with the other flags. Positions count from 1, as contentlib show prints them.

Examples:
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --title "Summer sale" --status scheduled
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --add-hashtag summer --remove-hashtag winter
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --thumbnail cover.jpg
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --platform youtube.visibility=private --platform tiktok.duet=false
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --order 3,1,2 --dry-run
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --order beach.jpg      # beach.jpg first, the rest as they were
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --remove-image 10
  contentlib edit 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --replace-image 2 sunset-fixed.jpg
  contentlib edit --where '#summersale status:draft' --status scheduled --add-hashtag launch --dry-run
  contentlib edit --where 'created:>7d by:ci-bot' --remove-hashtag wip --yes

--where shows the count and the first changes, then asks (or needs --yes); every change carries
one batch id, listed by contentlib log --batch ID and taken back by contentlib undo ID.`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/edit.js'),
        (m) => m.editCommand,
      ),
    );
}

function defineRm(program: Command, ctx: CliContext): void {
  program
    .command('rm')
    .description('delete items and all their files for good (asks first on a terminal)')
    .argument('[ids...]', 'ids of the items to delete; - reads ids from standard input')
    .option('--where <query>', 'delete every item this query matches, as one batch (see contentlib ls --help)')
    .option('--dry-run', 'with --where: show which items would be deleted; delete nothing')
    .option('-y, --yes', 'do not ask (required when not on a terminal); with no ids, does nothing')
    .addHelpText(
      'after',
      `
Examples:
  contentlib rm 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11
  contentlib rm --yes 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 9b2d7e10-55aa-4f3e-8c1d-0a9e8f7b6c54
  contentlib ls --status failed --jq '.[].id' | contentlib rm --yes -
  contentlib rm --where 'status:failed created:<30d' --dry-run

Deletions are final: contentlib undo cannot bring deleted items back.`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/rm.js'),
        (m) => m.rmCommand,
      ),
    );
}

function defineDownload(program: Command, ctx: CliContext): void {
  program
    .command('download')
    .description('download items’ files: a video as its file, a carousel as a folder of its images in order')
    .argument('<ids...>', 'the item ids (see contentlib ls)')
    .option('-o, --output <dir>', 'the folder to write into (default: the current folder)')
    .option('-O, --output-file <file>', 'write the one file of a video item to this path; - writes it to stdout')
    .option('--skip-existing', 'keep files that are already there (with the library’s size)')
    .option('--clobber', 'replace files that are already there')
    .addOption(
      new Option('--concurrency <n>', 'files fetched at once').default(DEFAULT_CONCURRENCY).argParser(parseConcurrency),
    )
    .addHelpText(
      'after',
      `
A carousel becomes a folder named after its title, holding its images as 01-…, 02-… in the
carousel's order. Each file is written to a temporary name, checked (its size, and its SHA-256
where the library knows it) and renamed; a transfer that breaks resumes where it stopped.

Examples:
  contentlib download 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11
  contentlib download 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 9b2d7e10-55aa-4f3e-8c1d-0a9e8f7b6c54 -o media/
  contentlib download 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 -O - | ffprobe -
  contentlib ls --type carousel --jq '.[].id' | xargs contentlib download --skip-existing -o carousels/`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/download.js'),
        (m) => m.downloadCommand,
      ),
    );
}

function defineExport(program: Command, ctx: CliContext): void {
  program
    .command('export')
    .description('export the library to a folder that contentlib upload reads back (backup, moving)')
    .argument('<dir>', 'the export folder (created when missing; a re-run updates it)')
    .addOption(new Option('--status <status>', 'only items with this status').choices(STATUSES))
    .addOption(new Option('--type <type>', 'only items of this type').choices(CONTENT_TYPES))
    .option('--search <text>', 'only items whose title contains this text (case-insensitive)')
    .addOption(
      new Option('--concurrency <n>', 'files fetched at once').default(DEFAULT_CONCURRENCY).argParser(parseConcurrency),
    )
    .option('--verify', 'compare the folder with the library instead (exit 1 on any difference)')
    .addHelpText(
      'after',
      `
The folder holds each item in a folder of its own (media, a sidecar with its metadata, its
thumbnail), contentlib.json (what contentlib upload reads: types, order, thumbnails) and
manifest.jsonl (each item's files with their sizes and SHA-256). A re-run downloads only what is
new or changed, takes out what is gone from the library, and resumes an interrupted run.
--verify prints each difference: + missing here, - missing there, * different.

Examples:
  contentlib export backup/
  contentlib export --verify backup/
  contentlib export drafts/ --status draft --type carousel
  contentlib --profile team upload backup/        # the same items in another library`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/export.js'),
        (m) => m.exportCommand,
      ),
    );
}

function defineBrowse(program: Command, ctx: CliContext): void {
  program
    .command('browse')
    .description('look at the library in your web browser: a grid, each item’s media and fields, and edits')
    .addOption(new Option('--port <port>', 'port on 127.0.0.1 (default: a free one)').argParser(parsePort('--port')))
    .option('--no-open', 'print the URL only; do not open a browser (also BROWSER=none)')
    .addHelpText(
      'after',
      `
The first line of output is the page's URL, with a key for this launch only; the server listens
on 127.0.0.1 and runs until Ctrl-C. It shows whichever library the command resolves to
(--profile, --base-url, or the embedded one), through this process: the API key stays here.

Examples:
  contentlib browse
  contentlib browse --profile staging --no-open
  contentlib show 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11 --web`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/browse.js'),
        (m) => m.browseCommand,
      ),
    );
}

function defineLogin(program: Command, ctx: CliContext): void {
  program
    .command('login')
    .description('save a service’s base URL and API key as a profile, after checking the key works')
    .option('--with-token', 'read the API key from standard input (for scripts)')
    .addHelpText(
      'after',
      `
The key is checked with one list request, then saved in the config file (mode 0600) and the
profile becomes the active one. Use the global --profile NAME to keep several.

Examples:
  contentlib login --base-url https://content.example.com
  printf %s "$CONTENTLIB_KEY" | contentlib login --with-token --base-url https://content.example.com
  contentlib login --profile staging --base-url https://staging.content.example.com`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/login.js'),
        (m) => m.loginCommand,
      ),
    );

  program
    .command('logout')
    .description('forget a saved profile and its key (the active one unless --profile)')
    .addHelpText(
      'after',
      `
Examples:
  contentlib logout
  contentlib logout --profile staging`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/login.js'),
        (m) => m.logoutCommand,
      ),
    );
}

function defineAuth(program: Command, ctx: CliContext): void {
  const auth = program.command('auth').description('check the credentials the commands use');
  auth
    .command('status')
    .description('show the target, brand and key, and check the key against the service (exit 4 when rejected)')
    .addHelpText(
      'after',
      `
Examples:
  contentlib auth status
  CONTENTLIB_BASE_URL=https://content.example.com CONTENTLIB_API_KEY=$KEY contentlib auth status --json`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/auth.js'),
        (m) => m.authStatusCommand,
      ),
    );
}

function defineConfig(program: Command, ctx: CliContext): void {
  const config = program
    .command('config')
    .description('show or change saved settings (profiles, active profile)')
    .addHelpText(
      'after',
      `
Settings: active-profile, base-url and api-key (of the active profile, or of --profile NAME), path,
embedded (true: with no remote configured, write to the embedded library even in CI or a pipe).

Examples:
  contentlib config list
  contentlib config set active-profile staging
  contentlib config get base-url --profile staging
  contentlib config set embedded true`,
    );

  config
    .command('list')
    .description('every setting, API keys redacted')
    .action(
      lazy(
        ctx,
        () => import('./commands/config.js'),
        (m) => m.configListCommand,
      ),
    );
  config
    .command('get')
    .description('print one setting')
    .argument('<key>', CONFIG_KEYS.join(' | '))
    .action(
      lazy(
        ctx,
        () => import('./commands/config.js'),
        (m) => m.configGetCommand,
      ),
    );
  config
    .command('set')
    .description('change one setting')
    .argument('<key>', 'active-profile | base-url | embedded')
    .argument('<value>', 'the new value ("" clears active-profile)')
    .action(
      lazy(
        ctx,
        () => import('./commands/config.js'),
        (m) => m.configSetCommand,
      ),
    );
}

function defineCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', SHELLS.join(' | '))
    .addHelpText(
      'after',
      `
Examples:
  source <(contentlib completion bash)          # add to ~/.bashrc
  source <(contentlib completion zsh)           # add to ~/.zshrc
  contentlib completion fish > ~/.config/fish/completions/contentlib.fish`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/completion.js'),
        (m) => m.completionCommand(program),
      ),
    );
}

function defineServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the embedded Content Library server for other clients (prints its base URL)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '0')
    .option('--data-dir <dir>', 'where the database and files live (default: the embedded library)')
    .option(
      '--db <url>',
      'postgres://… : metadata in PostgreSQL, shared by every instance (default: $CONTENTLIB_DATABASE_URL, else SQLite in the data dir)',
    )
    .option(
      '--storage <url>',
      's3://bucket[/prefix]: objects in an S3-compatible store, configured by the standard AWS_* variables (default: $CONTENTLIB_STORAGE_URL, else the data dir)',
    )
    .option(
      '--public-url <url>',
      'base URL clients reach this server at, used in signed URLs (default: the listening address)',
    )
    .addOption(new Option('--url-ttl <seconds>').hideHelp())
    .addOption(new Option('--quota <bytes>').hideHelp())
    .option(
      '--rate-limit <n/windowMs>',
      `requests per API key per window, or off (default: ${TEAM_RATE_LIMIT.max}/${TEAM_RATE_LIMIT.windowMs} with --db, else off); requests without a valid key: ${UNAUTHENTICATED_RATE_LIMIT.max} per ${UNAUTHENTICATED_RATE_LIMIT.windowMs / 1000} s per address`,
    )
    .option(
      '--db-timeout <seconds>',
      `each database statement, and waiting for a connection, gives up after this (default: ${DEFAULT_TIMEOUTS.databaseMs / 1000})`,
    )
    .option(
      '--storage-timeout <seconds>',
      `each call to the object store gives up after this (default: ${DEFAULT_TIMEOUTS.storageMs / 1000})`,
    )
    .option(
      '--put-min-rate <bytes[/seconds]>',
      `storage PUTs to the data dir bringing less than this per second over a window are cut (default: ${DEFAULT_PUT_LIMITS.minBytesPerSecond}/${DEFAULT_PUT_LIMITS.rateWindowMs / 1000})`,
    )
    .option(
      '--put-max-time <seconds>',
      `storage PUTs to the data dir taking longer are cut (default: ${DEFAULT_PUT_LIMITS.maxMs / 1000})`,
    )
    .option('--log-level <level>', `fatal, error, warn, info, debug, trace or silent`, 'info')
    .option('--log-format <format>', 'pretty or json (default: pretty on a terminal, json otherwise)')
    .option('--metrics', 'serve Prometheus metrics at GET /metrics on the same port')
    .option('--metrics-port <port>', 'serve GET /metrics on this port instead (implies --metrics)')
    .option('--drain-grace <seconds>', 'after SIGTERM, keep serving this long while /readyz says 503', '5')
    .option('--drain-timeout <seconds>', 'then wait this long for requests in flight before cutting them', '60')
    .option('--audit-retention <duration>', 'keep audit log entries this long: 365d (default), 90d, 24h')
    .option('--no-previews', 'make no posters or previews at all (docs/deploy.md, Posters and previews)')
    .option(
      '--ffmpeg <path>',
      "the ffmpeg that takes videos' poster frames, or none (default: ffmpeg on PATH; without one, no posters)",
    )
    .addHelpText(
      'after',
      `
Examples:
  contentlib serve
  contentlib serve --port 8080 --data-dir ./library
  contentlib serve --port 0 > server.url &   # scripts: the first stdout line is the URL
  contentlib serve --host 0.0.0.0 --port 8080 --db postgres://contentlib@db/contentlib   # one of N instances (docs/deploy.md)
  contentlib serve --host 0.0.0.0 --port 8080 --log-format json --metrics-port 9464

Probes: GET /healthz (alive) and GET /readyz (database and storage answer; 503 while draining).

Give clients a key with: contentlib keys create --brand NAME --data-dir <same dir> (--role reader|publisher|editor|admin)`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/serve.js'),
        (m) => m.serveCommand,
      ),
    );
}

function defineKeys(program: Command, ctx: CliContext): void {
  const keys = program
    .command('keys')
    .description('manage API keys: on the server’s machine, or over a service’s API with a keys:admin key')
    .addHelpText(
      'after',
      `
Where: --data-dir or --db work on the server's own database (any brand). Otherwise the target of
every command: a remote service (profile, --base-url, CONTENTLIB_BASE_URL) is asked over its API,
for the brand of the key you use (it needs keys:admin); with no remote, the embedded library.
The target is named on stderr first.

Scopes: content:read (list, show), content:write (upload, edit), content:delete (rm),
audit:read (log), keys:admin (keys; log too). Roles: reader, publisher (+write),
editor (+delete, +audit:read: support reads the history without managing keys), admin (all).

Examples:
  contentlib keys create --name "CI publisher" --role publisher --expires 90d
  contentlib keys create --brand acme --data-dir ./library
  contentlib keys list
  contentlib keys revoke 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11`,
    );
  const dataDirOption = '--data-dir <dir>';
  const dataDirHelp = "the server's data dir: work on its database directly";
  const dbOption = '--db <url>';
  const dbHelp = "the servers' PostgreSQL (postgres://…; also $CONTENTLIB_DATABASE_URL): work on it directly";

  keys
    .command('create')
    .description('create a key; it is printed once, alone on stdout')
    .option('--brand <name>', 'on the server’s machine: the brand the key belongs to (created when new)')
    .option('--name <text>', 'what the key is for, e.g. "CI publisher" (shown by keys list and log)')
    .option(
      '--scope <scopes>',
      `what the key may do: ${SCOPES.join(', ')} (repeatable or comma-separated; default: all)`,
      collect,
    )
    .addOption(new Option('--role <role>', 'a set of scopes: reader, publisher, editor or admin').choices(ROLE_NAMES))
    .option(
      '--expires <duration>',
      'the key stops working after this long: 90d, 12h, 30m, 45s',
      parseDuration('--expires'),
    )
    .option(dataDirOption, dataDirHelp)
    .option(dbOption, dbHelp)
    .addHelpText(
      'after',
      '\nExamples:\n  contentlib keys create --name "dashboard" --role reader\n  contentlib keys create --name CI --scope content:read,content:write --expires 90d\n  KEY=$(contentlib keys create --brand acme --data-dir ./library)\n  contentlib keys create --brand acme --db postgres://contentlib@db/contentlib',
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/keys.js'),
        (m) => m.keysCreateCommand,
      ),
    );

  keys
    .command('list')
    .description('list keys (id, name, prefix, scopes, expiry, last use, status), never the keys themselves')
    .option(dataDirOption, dataDirHelp)
    .option(dbOption, dbHelp)
    .addHelpText(
      'after',
      "\nExamples:\n  contentlib keys list\n  contentlib keys list --json | jq -r '.[] | select(.revokedAt == null) | .id'",
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/keys.js'),
        (m) => m.keysListCommand,
      ),
    );

  keys
    .command('revoke')
    .description('revoke a key at once (requests with it get 401)')
    .argument('<id>', 'key id, from contentlib keys list')
    .option(dataDirOption, dataDirHelp)
    .option(dbOption, dbHelp)
    .addHelpText('after', '\nExamples:\n  contentlib keys revoke 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11')
    .action(
      lazy(
        ctx,
        () => import('./commands/keys.js'),
        (m) => m.keysRevokeCommand,
      ),
    );
}

function defineLog(program: Command, ctx: CliContext): void {
  program
    .command('log')
    .description(
      'who did what: the audit log of the brand (uploads, edits, deletions, keys); needs audit:read (editor, admin)',
    )
    .argument('[id]', 'only this item’s entries')
    .option('--key <id>', 'only what this key did (an id from contentlib keys list)')
    .option('--since <when>', 'only entries since then: 7d, 12h, 30m, or a date (2026-01-01)')
    .option('--batch <id>', 'only the entries of one bulk change (edit --where, rm --where, undo)')
    .option(
      '--limit <n>',
      `how many of the latest entries (default ${LIST_LIMITS.defaultLimit})`,
      parseCount('--limit', 1),
    )
    .option('--all', 'every entry (ignores --limit)')
    .addHelpText(
      'after',
      `
Entries are printed oldest first (the latest last). Kept for a year by default (serve --audit-retention).

Examples:
  contentlib log 3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11
  contentlib log --since 7d
  contentlib log --key 62922a20-4866-4238-af64-d3b7e6a5ef19 --json
  contentlib log --batch 0b7c5a9e-2f41-4d8e-9c11-5e6f7a8b9c0d`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/log.js'),
        (m) => m.logCommand,
      ),
    );
}

function defineUndo(program: Command, ctx: CliContext): void {
  program
    .command('undo')
    .description('take back a bulk edit (edit --where): each item gets its values from before the batch')
    .argument('<batch>', 'the batch id edit --where printed (or see contentlib log --json)')
    .option('-y, --yes', 'do not ask (required when not on a terminal)')
    .option('--dry-run', 'show what would be restored; change nothing')
    .option('--force', 'also restore items changed again after the batch (that later change is lost)')
    .addHelpText(
      'after',
      `
The undo is itself one batch: its id is printed, and undoing it puts the batch's values back.
Items changed again after the batch are named and left alone unless --force. Deletions
(rm --where) are final: their files are gone, so they cannot be undone.

Examples:
  contentlib log --batch 0b7c5a9e-2f41-4d8e-9c11-5e6f7a8b9c0d
  contentlib undo 0b7c5a9e-2f41-4d8e-9c11-5e6f7a8b9c0d --dry-run
  contentlib undo 0b7c5a9e-2f41-4d8e-9c11-5e6f7a8b9c0d --yes`,
    )
    .action(
      lazy(
        ctx,
        () => import('./commands/undo.js'),
        (m) => m.undoCommand,
      ),
    );
}
