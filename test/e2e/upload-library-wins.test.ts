// The library's word wins (issue 35): a CI re-run from a fresh runner never undoes what a person
// changed in the library. The built CLI uploads a folder to `contentlib serve`; support renames
// an item and publishes it; the same upload from an empty home keeps the edit, says what differs
// (text and NDJSON) and writes nothing (no audit entry, `updatedBy` unchanged). Then
// `--update-metadata` applies exactly the differences: one audit entry, and none when run again.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient } from '../../src/api/client.js';
import { SummarySchema } from '../../src/cli/output/upload-ndjson.js';
import { apiClient, cli, createKey, tempHome } from '../support/cli.js';
import { type RemoteLibrary, startServedLibrary } from '../support/remote-library.js';
import { layout } from '../support/tree.js';

/** The library, with the CI's key. */
let lib: RemoteLibrary;
/** Where the folder to upload is. */
let work: { dir: string; remove: () => Promise<void> };
/** Support's own key on the same brand. */
let support: ApiClient;

beforeAll(async () => {
  lib = await startServedLibrary();
  work = await tempHome();
  support = apiClient(lib.url, await createKey(lib.serverHome, 'acme'));
  await layout(join(work.dir, 'media'), {
    'launch.mp4': 'video/clip-5s.mp4',
    'launch.mp4.json': Buffer.from(JSON.stringify({ title: 'Launch film', hashtags: ['launch'] })),
    'behind.mov': 'video/clip-5s.mov',
  });
}, 60_000);

afterAll(async () => {
  await support?.close();
  await lib?.dispose();
  await work?.remove();
});

/** A fresh runner: a CONTENTLIB_HOME nobody has used, pointed at the service with the CI key. */
async function freshRun(args: string[]) {
  return cli(await lib.freshHome(), ['upload', join(work.dir, 'media'), '--status', 'scheduled', ...args], {
    env: { ...lib.env, CONTENTLIB_EMBEDDED: undefined },
  });
}

const entriesOf = async (itemId: string) => (await support.audit({ itemId, limit: 100 })).entries;

describe('a re-run never undoes an edit made in the library', () => {
  let launchId: string;

  it('the first run creates the items with their metadata', async () => {
    const r = await freshRun([]);
    expect(r.exitCode, r.stderr).toBe(0);
    const { items } = await support.list({ limit: 10 });
    const launch = items.find((i) => i.title === 'Launch film')!;
    expect(launch).toMatchObject({ status: 'scheduled', hashtags: ['launch'] });
    launchId = launch.id;
  });

  it('fresh runners keep the edit, name the difference, and write nothing', async () => {
    await support.patch(launchId, { title: 'Launch film (final cut)', status: 'published' });
    const edited = (await support.get(launchId)).item;
    const before = await entriesOf(launchId);

    const text = await freshRun([]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stderr).toContain('Nothing new to upload: 2 items (2 files) already in the library');
    expect(text.stderr).toContain(
      `launch.mp4 (${launchId}): differs from the library: title, status; --update-metadata applies them`,
    );
    // behind.mov has no metadata of its own but --status, which the library has already.
    expect(text.stderr).not.toMatch(/behind\.mov.*differs/);

    const json = await freshRun(['--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    const summary = SummarySchema.parse(JSON.parse(json.stdout.trim().split('\n').at(-1)!));
    expect(summary).toMatchObject({ skipped: 2, differing: 1, updated: 0 });
    expect(summary.items.find((i) => i.id === launchId)).toMatchObject({
      outcome: 'skipped',
      differs: ['title', 'status'],
      updated: [],
    });

    const after = (await support.get(launchId)).item;
    expect(after).toMatchObject({ title: 'Launch film (final cut)', status: 'published' });
    expect(after.updatedAt).toBe(edited.updatedAt);
    expect(after.updatedBy).toEqual(edited.updatedBy);
    expect(await entriesOf(launchId)).toEqual(before);
  });

  it('--update-metadata applies exactly the differences: one audit entry, then none', async () => {
    const before = await entriesOf(launchId);
    const r = await freshRun(['--update-metadata']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^Updated: \\S*launch\\.mp4 \\(${launchId}\\): title, status$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^${launchId}\\tshortform\\tupdated\\t`, 'm'));
    expect((await support.get(launchId)).item).toMatchObject({
      title: 'Launch film',
      status: 'scheduled',
      hashtags: ['launch'],
    });
    const now = await entriesOf(launchId); // newest first
    expect(now).toHaveLength(before.length + 1);
    expect(now[0]).toMatchObject({ action: 'item.updated', details: { fields: ['title', 'status'] } });

    const again = await freshRun(['--update-metadata']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Updated:');
    expect(await entriesOf(launchId)).toHaveLength(before.length + 1);
  });

  it('a PATCH that changes nothing writes no audit entry and keeps updatedAt', async () => {
    const before = await support.get(launchId);
    const entries = await entriesOf(launchId);
    await support.patch(launchId, { title: before.item.title, status: before.item.status, hashtags: ['launch'] });
    const after = await support.get(launchId);
    expect(after.item.updatedAt).toBe(before.item.updatedAt);
    expect(await entriesOf(launchId)).toEqual(entries);
  });
});
