// Bulk changes and their undo (edit --where, rm --where, log --batch, undo), and what ls sends for
// a query: the CLI in-process against a real server on 127.0.0.1 (test/support/cli-in-process.ts),
// and with a terminal faked through the command's I/O for the question.
import type { PassThrough } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { AuditEntryWire, ContentItem } from '../../src/api/schemas.js';
import type { CliContext } from '../../src/cli/context.js';
import { run } from '../../src/cli/main.js';
import { resolvePaths } from '../../src/config/paths.js';
import { runEditWhere } from '../../src/cli/commands/bulk.js';
import { InterruptedError, PartialError } from '../../src/cli/errors.js';
import { cli, upload } from '../support/cli-in-process.js';
import { bufferIO } from '../support/io.js';
import { type RemoteLibrary, startRemoteLibrary } from '../support/remote-library.js';

let lib: RemoteLibrary;

const clib = (args: string[]) => cli(lib.home, args, { env: lib.env });

/** The command line with a terminal on both ends, answering `answer` to the one question. */
async function onTerminal(args: string[], answer: string): Promise<{ exitCode: number; out: string; err: string }> {
  const io = bufferIO({ stdinIsTTY: true, stderrIsTTY: true });
  const ctx: CliContext = {
    io,
    env: { CONTENTLIB_HOME: lib.home, ...lib.env },
    paths: resolvePaths({ CONTENTLIB_HOME: lib.home }),
    cwd: lib.home,
    now: () => new Date(),
    sleep: async () => {},
    signal: new AbortController().signal,
    onClose: () => {},
    targetNames: new Map(),
  };
  // The answer arrives once the question is asked, as a person types it.
  const typing = (async () => {
    while (!io.err().includes('[y/N]')) await delay(5);
    (io.stdin as PassThrough).end(`${answer}\n`);
  })();
  const closers: Array<() => Promise<void> | void> = [];
  const exitCode = await run(args, ctx, closers);
  await Promise.race([typing, delay(50)]);
  return { exitCode, out: io.out(), err: io.err() };
}

const item = async (id: string) => (await lib.client.get(id)).item;
/** What a change may touch, and when it last did (signed URLs differ from one second to the next). */
const fieldsOf = (i: ContentItem) => ({
  id: i.id,
  title: i.title,
  description: i.description,
  hashtags: i.hashtags,
  status: i.status,
  platformSettings: i.platformSettings,
  updatedAt: i.updatedAt,
});
/** The item as the library holds it now, unchanged since `i` was read. */
const expectUnchanged = async (i: ContentItem) => expect(fieldsOf(await item(i.id))).toEqual(fieldsOf(i));
const batchEntries = async (batchId: string) => (await lib.client.audit({ batchId, limit: 100 })).entries;
/** Items with titles that begin with `prefix`: the title search is a filter every service has. */
const itemsTitled = async (prefix: string) =>
  (await lib.client.list({ search: prefix, limit: 100 })).items.filter((i) => i.title.startsWith(prefix));

/** `n` short videos titled `<group> 1`…, with hashtags and platform settings of their own. */
async function seed(group: string, n: number, extra: (i: number) => Record<string, unknown> = () => ({})) {
  const out: ContentItem[] = [];
  for (let i = 1; i <= n; i++) {
    const made = await upload(lib.client, 'video/clip-5s.mp4', { fileName: `${group}-${i}.mp4` });
    const body = {
      title: `${group} ${i}`,
      description: `about ${group} ${i}`,
      hashtags: [`tag${i}`, 'common'],
      platformSettings: {
        youtube: { visibility: i % 2 ? 'private' : 'unlisted', n: i },
        tiktok: { duet: i % 2 === 0 },
      },
      ...extra(i),
    };
    out.push((await lib.client.patch(made.id, body as never)).item);
  }
  return out;
}

beforeAll(async () => (lib = await startRemoteLibrary()), 60_000);
afterAll(async () => lib?.dispose());

describe('ls QUERY and the search flags: what is sent', () => {
  it('the query and the flags become one list request', async () => {
    const r = await clib([
      '--verbose',
      'ls',
      'status:draft #summersale created:>=2026-11-01 by:ci-bot northwind "exact phrase"',
      '--hashtag',
      'launch',
      '--sort',
      'title-asc',
      '--max-duration',
      '90',
      '--updated-since',
      '2026-10-01',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('→ GET') && l.includes('/api/v1/content?'));
    const url = new URL(/→ GET (\S+)/.exec(line ?? '')![1]!);
    const q = url.searchParams;
    expect(q.get('status')).toBe('draft');
    expect(q.getAll('hashtag')).toEqual(['summersale', 'launch']);
    expect(q.get('createdAfter')).toBe('2026-11-01T00:00:00.000Z');
    expect(q.get('updatedAfter')).toBe('2026-10-01T00:00:00.000Z');
    expect(q.get('createdBy')).toBe('ci-bot');
    expect(q.get('q')).toBe('northwind "exact phrase"');
    expect(q.get('sort')).toBe('title');
    expect(q.get('order')).toBe('asc');
    expect(q.get('maxDuration')).toBe('90');
  });

  it('a query that cannot be read is a usage error (2) before any request', async () => {
    for (const [args, message] of [
      [['ls', 'colour:red'], /Unknown word "colour:"/],
      [['ls', 'created:>yesterday'], /not a date, a time or a duration/],
      [['ls', '--since', 'soon'], /not a date, a time or a duration/],
      [['ls', 'status:draft', '--status', 'failed'], /both set status/],
      [['ls', '--sort', 'size'], /is not a sort/],
    ] as const) {
      const r = await clib(['--verbose', ...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toContain('→ GET');
    }
  });

  it('a filter the server has always had works through the query (type:, status:, title:)', async () => {
    await seed('lsquery', 2);
    const r = await clib(['ls', 'title:lsquery status:draft type:shortform', '--json', 'title']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { title: string }[]).map((i) => i.title).sort()).toEqual([
      'lsquery 1',
      'lsquery 2',
    ]);
  });
});

describe('edit --where', () => {
  let items: ContentItem[];
  beforeEach(async () => {
    items = await seed(`edit${Date.now()}`, 3);
  });
  const where = () => `title:"${items[0]!.title.replace(/ \d+$/, '')}"`;

  it('--dry-run shows each change and sends nothing', async () => {
    const r = await clib(['edit', '--where', where(), '--status', 'scheduled', '--add-hashtag', 'launch', '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('3 items match; 3 would change');
    expect(r.stdout.split('\n')).toHaveLength(3);
    expect(r.stdout).toContain(`Would change\t${items[0]!.id}`);
    expect(r.stdout).toContain(
      `${items[0]!.title}\thashtags ["tag1","common"] → ["tag1","common","launch"]; status "draft" → "scheduled"`,
    );
    expect(r.stderr).toContain('Dry run: 3 of 3 items would change; nothing was sent.');
    for (const i of items) await expectUnchanged(i);
  });

  it('without a terminal and without --yes: refused (2), nothing opened or changed', async () => {
    const r = await cli(lib.home, ['--verbose', 'edit', '--where', where(), '--status', 'scheduled'], { env: lib.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Refusing to change items without confirmation: no terminal to ask on.');
    expect(r.stderr).toContain('--yes');
    expect(r.stderr).not.toContain('→');
    for (const i of items) await expectUnchanged(i);
  });

  it('--yes: every match changed from its own values, one batch id on every audit entry, --json result', async () => {
    const r = await clib([
      'edit',
      '--where',
      where(),
      '--status',
      'scheduled',
      '--add-hashtag',
      'launch',
      '--remove-hashtag',
      'common',
      '--yes',
      '--json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      batchId: string;
      dryRun: boolean;
      matched: number;
      items: { id: string; outcome: string }[];
    };
    expect(result.batchId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.dryRun).toBe(false);
    expect(result.matched).toBe(3);
    expect(result.items.map((i) => i.outcome)).toEqual(['changed', 'changed', 'changed']);
    for (const [n, i] of items.entries()) {
      const now = await item(i.id);
      expect(now.status).toBe('scheduled');
      expect(now.hashtags).toEqual([`tag${n + 1}`, 'launch']);
    }
    const entries = await batchEntries(result.batchId);
    expect(entries.map((e) => e.itemId).sort()).toEqual(items.map((i) => i.id).sort());
    expect(entries.every((e) => e.batchId === result.batchId && e.action === 'item.updated')).toBe(true);
    // log --batch lists the same entries.
    const log = await clib(['log', '--batch', result.batchId, '--json', 'itemId,batchId']);
    expect(log.exitCode, log.stderr).toBe(0);
    const logged = JSON.parse(log.stdout) as { itemId: string; batchId: string }[];
    expect(logged.map((e) => e.itemId).sort()).toEqual(items.map((i) => i.id).sort());
    expect(new Set(logged.map((e) => e.batchId))).toEqual(new Set([result.batchId]));
  });

  it('on a terminal: the preview and one question; "n" changes nothing (130), "y" changes all', async () => {
    const no = await onTerminal(['edit', '--where', where(), '--status', 'published'], 'n');
    expect(no.exitCode).toBe(130);
    expect(no.err).toContain('3 items match; 3 would change:');
    expect(no.err).toContain(`${items[1]!.id}  ${items[1]!.title}  status "draft" → "published"\n`);
    expect(no.err).toContain('Change all 3? [y/N]');
    expect(no.err).toContain('Nothing was changed.');
    for (const i of items) await expectUnchanged(i);
    const yes = await onTerminal(['edit', '--where', where(), '--status', 'published'], 'y');
    expect(yes.exitCode, yes.err).toBe(0);
    for (const i of items) expect((await item(i.id)).status).toBe('published');
  });

  it('an item that fails is reported and the rest go on; exit 3 with a summary', async () => {
    const gone = items[1]!;
    // The item is deleted between the listing and its PATCH.
    const racing = {
      list: async (...a: Parameters<ApiClient['list']>) => {
        const page = await lib.client.list(...a);
        await lib.client.remove(gone.id);
        return page;
      },
      patch: lib.client.patch,
      remove: lib.client.remove,
    };
    const io = bufferIO();
    const result = await runEditWhere(
      { where: where(), flags: { status: 'failed' }, yes: true },
      { client: racing, io, now: () => new Date() },
    );
    expect(Object.fromEntries(result.items.map((i) => [i.id, i.outcome]))).toEqual(
      Object.fromEntries(items.map((i) => [i.id, i.id === gone.id ? 'failed' : 'changed'])),
    );
    expect(result.items.find((i) => i.id === gone.id)?.error?.status).toBe(404);
    const { bulkOutcome } = await import('../../src/cli/commands/bulk.js');
    const outcome = bulkOutcome(result, 'Changed');
    expect(outcome.line).toMatch(
      /^Changed 2 of 3 items as batch \S+ \(see it: contentlib log --batch \S+; take it back: contentlib undo \S+\)\. 1 was not \(listed above\)\.$/,
    );
    expect(outcome.error).toBeInstanceOf(PartialError);
    expect((outcome.error as PartialError).exitCode).toBe(3);
  });

  it('a service that ignores a filter (no search extension) lists non-matches: refused, nothing changed', async () => {
    // As a spec-only service answers: the hashtag filter unknown, so every item of the title listed.
    const spec = {
      ...lib.client,
      list: (q: Parameters<ApiClient['list']>[0], o?: Parameters<ApiClient['list']>[1]) =>
        lib.client.list({ ...q, hashtag: undefined }, o),
    };
    await expect(
      runEditWhere(
        { where: `${where()} #nosuchtag`, flags: { status: 'failed' }, yes: true },
        { client: spec, io: bufferIO(), now: () => new Date() },
      ),
    ).rejects.toThrow(/which does not match the query; nothing was changed/);
    for (const i of items) await expectUnchanged(i);
  });

  it('Ctrl-C after the listing: nothing more is sent, every item not tried is skipped', async () => {
    const stop = new AbortController();
    const interrupted = {
      ...lib.client,
      list: async (...a: Parameters<ApiClient['list']>) => {
        const page = await lib.client.list(...a);
        stop.abort();
        return page;
      },
    };
    const result = await runEditWhere(
      { where: where(), flags: { status: 'failed' }, yes: true },
      { client: interrupted, io: bufferIO(), now: () => new Date(), signal: stop.signal },
    );
    expect(result.items.map((i) => [i.outcome, i.error?.code])).toEqual(items.map(() => ['skipped', 'interrupted']));
    for (const i of items) await expectUnchanged(i);
  });

  it('"n" at the question throws InterruptedError from runEditWhere itself', async () => {
    const io = bufferIO({ stdinIsTTY: true, stderrIsTTY: true });
    (io.stdin as PassThrough).end('no\n');
    await expect(
      runEditWhere({ where: where(), flags: { title: 'x' } }, { client: lib.client, io, now: () => new Date() }),
    ).rejects.toBeInstanceOf(InterruptedError);
  });

  it('usage errors: an empty query, an id and --where, image flags, nothing to change', async () => {
    for (const [args, message] of [
      [['edit', '--where', 'sort:title', '--status', 'draft', '--yes'], /does not narrow the list/],
      [['edit', items[0]!.id, '--where', where(), '--status', 'draft'], /Give an id or --where, not both/],
      [['edit', '--where', where(), '--order', '2,1', '--yes'], /--where changes the metadata of many items/],
      [['edit', '--where', where(), '--yes'], /Nothing to change/],
      [['edit', '--status', 'draft'], /Name the item to change, or --where QUERY/],
    ] as const) {
      const r = await clib([...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('undo', () => {
  it('restores exactly the previous values of every field, platformSettings included, as a new batch', async () => {
    const items = await seed(`undo${Date.now()}`, 3);
    const where = `title:"${items[0]!.title.replace(/ \d+$/, '')}"`;
    const edit = await clib([
      'edit',
      '--where',
      where,
      '--status',
      'scheduled',
      '--description',
      'one description for all',
      '--add-hashtag',
      'launch',
      '--platform',
      'youtube.visibility=public',
      '--platform',
      'tiktok=null',
      '--yes',
      '--json',
      'batchId',
    ]);
    expect(edit.exitCode, edit.stderr).toBe(0);
    const { batchId } = JSON.parse(edit.stdout) as { batchId: string };
    for (const i of items)
      expect((await item(i.id)).platformSettings).toEqual({
        youtube: { visibility: 'public', n: Number(i.title.slice(-1)) },
      });

    const dry = await clib(['undo', batchId, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`Batch ${batchId}: 3 of 3 items would be restored:`);
    expect((await item(items[0]!.id)).status).toBe('scheduled');

    const undo = await clib(['undo', batchId, '--yes', '--json']);
    expect(undo.exitCode, undo.stderr).toBe(0);
    const undone = JSON.parse(undo.stdout) as { batchId: string };
    expect(undone.batchId).not.toBe(batchId);
    for (const i of items) {
      const now = await item(i.id);
      // Every field as it was; only the time of the last change moved.
      expect({ ...fieldsOf(now), updatedAt: i.updatedAt }).toEqual(fieldsOf(i));
    }
    // The undo is a batch of its own: one entry per item.
    const entries: AuditEntryWire[] = await batchEntries(undone.batchId);
    expect(entries.map((e) => e.itemId).sort()).toEqual(items.map((i) => i.id).sort());
  });

  it('refuses an item changed after the batch and names it (exit 3); --force restores it', async () => {
    const items = await seed(`later${Date.now()}`, 2);
    const where = `title:"${items[0]!.title.replace(/ \d+$/, '')}"`;
    const edit = await clib(['edit', '--where', where, '--status', 'published', '--yes', '--json', 'batchId']);
    const { batchId } = JSON.parse(edit.stdout) as { batchId: string };
    const later = items[1]!;
    await lib.client.patch(later.id, { title: `${later.title} renamed` });

    const undo = await clib(['undo', batchId, '--yes']);
    expect(undo.exitCode, undo.stderr).toBe(3);
    expect(undo.stderr).toContain(
      `${later.id}  ${later.title} renamed: changed again after the batch (item.updated by`,
    );
    expect(undo.stdout).toContain(`Skipped\t${later.id}`);
    expect(undo.stderr).toContain('Restored 1 of 2 items');
    expect((await item(items[0]!.id)).status).toBe('draft');
    expect((await item(later.id)).status).toBe('published');

    const forced = await clib(['undo', batchId, '--yes', '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    const now = await item(later.id);
    expect(now.status).toBe('draft');
    // --force puts back the batch's own fields; the later rename is not the batch's to undo.
    expect(now.title).toBe(`${later.title} renamed`);
  });

  it('a batch id that is not one (2), one that is unknown (5)', async () => {
    const bad = await clib(['undo', 'nope']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"nope" is not a batch id');
    const unknown = await clib(['undo', '00000000-0000-4000-8000-000000000000', '--yes']);
    expect(unknown.exitCode).toBe(5);
    expect(unknown.stderr).toContain('No change of this brand');
  });
});

describe('rm --where', () => {
  it('--dry-run deletes nothing; without --yes off a terminal it is refused; --yes deletes as one batch; its undo says deletions are final', async () => {
    const items = await seed(`rm${Date.now()}`, 2);
    const where = `title:"${items[0]!.title.replace(/ \d+$/, '')}"`;
    const dry = await clib(['rm', '--where', where, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('2 items match; these would be deleted:');
    expect(dry.stderr).toContain('Deletions are final');
    expect((await itemsTitled(items[0]!.title.replace(/ \d+$/, ''))).length).toBe(2);

    const refused = await clib(['rm', '--where', where]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Refusing to delete items without confirmation');

    const no = await onTerminal(['rm', '--where', where], 'n');
    expect(no.exitCode).toBe(130);
    expect(no.err).toContain('Deletions are final');
    expect(no.err).toContain('Delete all 2 for good? [y/N]');

    const yes = await clib(['rm', '--where', where, '--yes', '--json']);
    expect(yes.exitCode, yes.stderr).toBe(0);
    const result = JSON.parse(yes.stdout) as { batchId: string; items: { outcome: string }[] };
    expect(result.items.map((i) => i.outcome)).toEqual(['deleted', 'deleted']);
    expect((await itemsTitled(items[0]!.title.replace(/ \d+$/, ''))).length).toBe(0);
    const entries = await batchEntries(result.batchId);
    expect(entries.map((e) => e.action)).toEqual(['item.deleted', 'item.deleted']);

    const undo = await clib(['undo', result.batchId, '--yes']);
    expect(undo.exitCode).toBe(1);
    expect(undo.stderr).toContain('deletions are final and cannot be undone');
  });
});

describe('with the server’s search filters (hashtag, dates)', () => {
  it('edit --where #tag changes only the items carrying it', async () => {
    const group = `tagged${Date.now()}`;
    const items = await seed(group, 3, (i) => ({ hashtags: i === 2 ? ['summersale', group] : [group] }));
    const r = await clib([
      'edit',
      '--where',
      `#summersale #${group} created:>1h`,
      '--status',
      'scheduled',
      '--yes',
      '--json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { matched: number; items: { id: string }[] };
    expect(result.matched).toBe(1);
    expect(result.items.map((i) => i.id)).toEqual([items[1]!.id]);
    expect((await item(items[0]!.id)).status).toBe('draft');
    expect((await item(items[1]!.id)).status).toBe('scheduled');
  });
});
