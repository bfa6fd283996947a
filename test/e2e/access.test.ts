// End to end, with the built CLI against `contentlib serve` in its own process: keys handed out
// over the API with `contentlib keys create`, what each key may do, and the audit log that says
// who did what (docs/api.md, Scopes and Audit log).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { apiClient, cli, startRemote, tempHome, upload } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';
import { distinctCopy } from '../support/tree.js';

let serverHome: { dir: string; remove: () => Promise<void> };
let home: { dir: string; remove: () => Promise<void> };
let remote: Awaited<ReturnType<typeof startRemote>>;
let adminKey: string;
let admin: ApiClient;

/** A key made on the server's machine, as its operator does first. */
async function serverKey(brand: string, name: string): Promise<string> {
  const r = await cli(serverHome.dir, ['keys', 'create', '--brand', brand, '--name', name]);
  if (r.exitCode !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** The CLI on another machine, pointed at the service with `key`. */
const as = (key: string, args: string[]) =>
  cli(home.dir, args, { env: { CONTENTLIB_BASE_URL: remote.url, CONTENTLIB_API_KEY: key } });

/** `contentlib keys create` over the API with the admin key; returns the new key. */
async function handOut(args: string[]): Promise<string> {
  const r = await as(adminKey, ['keys', 'create', ...args]);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toContain(`→ ${remote.url}`);
  return r.stdout.trim();
}

async function itemCount(): Promise<number> {
  return (await admin.list({ limit: 100 })).items.length;
}

beforeAll(async () => {
  serverHome = await tempHome();
  home = await tempHome();
  remote = await startRemote(serverHome.dir);
  adminKey = await serverKey('acme', 'admin');
  admin = apiClient(remote.url, adminKey);
}, 60_000);

afterAll(async () => {
  await admin?.close();
  await remote?.stop();
  await home?.remove();
  await serverHome?.remove();
});

describe('a read-only key and a publisher key, handed out over the API', () => {
  it('reader: ls and show work; upload, edit and rm exit 4 naming the missing scope and change nothing', async () => {
    const reader = await handOut(['--name', 'dashboard', '--scope', 'content:read']);
    const item = await upload(admin, 'video/clip-5s.mp4', { fileName: 'launch.mp4' });
    const before = await itemCount();

    expect((await as(reader, ['ls'])).exitCode).toBe(0);
    const show = await as(reader, ['show', item.id]);
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain('launch');

    const up = await as(reader, ['upload', join(FIXTURES, 'video/clip-2s.mp4'), '--type', 'longform']);
    expect(up.exitCode, up.stderr).toBe(4);
    expect(up.stderr).toContain('this command needs the scope content:write');
    const edit = await as(reader, ['edit', item.id, '--title', 'Hijacked']);
    expect(edit.exitCode).toBe(4);
    expect(edit.stderr).toContain('this command needs the scope content:write');
    const rm = await as(reader, ['rm', '--yes', item.id]);
    expect(rm.exitCode).toBe(4);
    expect(rm.stderr).toContain('this command needs the scope content:delete');

    expect(await itemCount()).toBe(before);
    expect((await admin.get(item.id)).item.title).toBe('launch');
  });

  it('publisher: upload works, rm is refused', async () => {
    const publisher = await handOut(['--name', 'CI publisher', '--role', 'publisher', '--expires', '90d']);
    const up = await as(publisher, ['upload', join(FIXTURES, 'video/clip-5s.mp4'), '--json']);
    expect(up.exitCode, up.stderr).toBe(0);
    const summary = JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { items: Array<{ id: string }> };
    const id = summary.items[0]!.id;
    const rm = await as(publisher, ['rm', '--yes', id]);
    expect(rm.exitCode).toBe(4);
    expect(rm.stderr).toContain('content:delete');
    expect((await admin.get(id)).item.id).toBe(id);
  });

  it('logged in with a key lacking keys:admin, keys create is refused, and nothing is written on this machine', async () => {
    const reader = await handOut(['--name', 'support', '--role', 'reader']);
    const login = await cli(home.dir, ['login', '--with-token', '--base-url', remote.url], { input: reader });
    expect(login.exitCode, login.stderr).toBe(0);
    try {
      const r = await cli(home.dir, ['keys', 'create', '--name', 'mine']);
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain(`→ profile default at ${remote.url}`);
      expect(r.stderr).toContain('this command needs the scope keys:admin');
      expect(r.stdout).toBe('');
      expect(existsSync(join(home.dir, 'data'))).toBe(false);
    } finally {
      expect((await cli(home.dir, ['logout'])).exitCode).toBe(0);
    }
  });
});

describe('who did what', () => {
  it('an upload by CI, an edit by Alice and a delete by Bob are in the log, in order, and stay after the delete', async () => {
    const ci = await handOut(['--name', 'CI', '--role', 'publisher']);
    const alice = await handOut(['--name', 'Alice', '--role', 'publisher']);
    const bob = await handOut(['--name', 'Bob', '--role', 'editor']);

    // Bytes of its own: the library already holds the fixture's (an earlier test uploaded it).
    // In the CLI's home, which afterAll removes: no folder left behind in the temp folder.
    const clip = join(home.dir, 'teaser.mp4');
    await distinctCopy('video/clip-5s.mp4', clip, 'who-did-what');
    const up = await as(ci, ['upload', clip, '--title', 'Teaser', '--json']);
    expect(up.exitCode, up.stderr).toBe(0);
    const id = (JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { items: Array<{ id: string }> }).items[0]!.id;
    expect((await as(alice, ['edit', id, '--title', 'Teaser v2'])).exitCode).toBe(0);

    const show = await as(alice, ['show', id]);
    expect(show.stdout).toMatch(/^createdBy\tCI \(key [0-9a-f-]{36}\)$/m);
    expect(show.stdout).toMatch(/^updatedBy\tAlice \(key [0-9a-f-]{36}\)$/m);

    expect((await as(bob, ['rm', '--yes', id])).exitCode).toBe(0);

    const log = await as(adminKey, ['log', id, '--json']);
    expect(log.exitCode, log.stderr).toBe(0);
    const entries = JSON.parse(log.stdout) as Array<{
      action: string;
      itemId: string;
      keyName: string;
      requestId: string | null;
      details: Record<string, unknown>;
    }>;
    // The upload's PATCH (its title) is CI's change too.
    expect(entries.map((e) => [e.keyName, e.action, e.itemId])).toEqual([
      ['CI', 'item.created', id],
      ['CI', 'item.updated', id],
      ['Alice', 'item.updated', id],
      ['Bob', 'item.deleted', id],
    ]);
    for (const e of entries) expect(e.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(entries.map((e) => e.requestId)).size).toBe(4);
    expect(entries[2]!.details.changes).toEqual({ title: { from: 'Teaser', to: 'Teaser v2' } });
    expect(entries[3]!.details).toEqual({ type: 'shortform', title: 'Teaser v2' });

    // The whole brand's log has them too, with the keys that were handed out.
    const all = JSON.parse((await as(adminKey, ['log', '--all', '--json'])).stdout) as Array<{
      action: string;
      details: { name?: string };
    }>;
    expect(all.filter((e) => e.action === 'key.created').map((e) => e.details.name)).toEqual(
      expect.arrayContaining(['admin', 'CI', 'Alice', 'Bob']),
    );

    // Brand B's admin sees none of brand A's entries.
    const other = await serverKey('globex', 'globex admin');
    const theirs = JSON.parse((await as(other, ['log', '--all', '--json'])).stdout) as Array<{
      itemId: string | null;
      details: { name?: string };
    }>;
    expect(theirs.some((e) => e.itemId === id)).toBe(false);
    expect(theirs.map((e) => e.details.name)).toEqual(['globex admin']);
    expect(JSON.parse((await as(other, ['log', id, '--json'])).stdout)).toEqual([]);
  });
});
