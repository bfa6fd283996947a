// Helpers for the end-to-end tests: run the built bin/contentlib.js with execa in a temp
// CONTENTLIB_HOME, start `contentlib serve` as a remote, and seed items through the real API
// (presign → PUT of real fixture bytes → complete).
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { request } from 'undici';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/client.js';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import type { ContentItem } from '../../src/api/schemas.js';
import type { ContentType } from '../../src/rules/rules.js';
import { BIN, FIXTURES } from './paths.js';
import { type ServeProcess, startServe } from './serve-process.js';

export async function tempHome(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'contentlib-cli-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The environment of a clean machine: none of the caller's CONTENTLIB_* or color settings. */
export function cleanEnv(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      k.startsWith('CONTENTLIB_') ||
      k === 'NO_COLOR' ||
      k === 'FORCE_COLOR' ||
      k.startsWith('XDG_')
    )
      continue;
    env[k] = v;
  }
  // CONTENTLIB_EMBEDDED=1: these runs have no terminal (and CI may be set), where a write with no
  // remote configured is refused unless the embedded library is chosen on purpose. Tests of that
  // refusal pass CONTENTLIB_EMBEDDED: undefined.
  Object.assign(env, {
    CONTENTLIB_HOME: home,
    CONTENTLIB_RETRY_BASE_MS: '0',
    CONTENTLIB_EMBEDDED: '1',
    NODE_NO_WARNINGS: '1',
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function cli(
  home: string,
  args: string[],
  opts: { env?: Record<string, string | undefined>; input?: string } = {},
): Promise<CliResult> {
  const r = await execa('node', [BIN, ...args], {
    env: cleanEnv(home, opts.env),
    extendEnv: false,
    reject: false,
    input: opts.input ?? '',
    timeout: 60_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** An item as `contentlib --json ls` prints it, with the fields the upload tests read. */
export interface ListedItem {
  id: string;
  type: string;
  title: string;
  durationSeconds: number | null;
  fileSize: number | null;
  fileName: string | null;
  fileCount?: number;
}

/** Every item of the library, through `--json ls --all` run by `cli` (the binary's, or in-process). */
export async function listAll(
  cli: (args: string[]) => Promise<{ exitCode?: number; stdout: string; stderr: string }>,
): Promise<ListedItem[]> {
  const r = await cli(['--json', 'ls', '--all']);
  if (r.exitCode !== 0) throw new Error(`ls failed (${r.exitCode}): ${r.stderr}`);
  return JSON.parse(r.stdout) as ListedItem[];
}

export async function fileMode(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

export async function readConfig(home: string): Promise<{
  activeProfile?: string;
  profiles: Record<string, { baseUrl: string; apiKey: string }>;
  embedded?: { apiKey: string; dataDir: string };
}> {
  return JSON.parse(await readFile(join(home, 'config', 'config.json'), 'utf8'));
}

/** `contentlib serve` in its own process on the home's default data dir (where `keys create` puts keys). */
export function startRemote(home: string): Promise<ServeProcess> {
  return startServe(join(home, 'data'), home);
}

/** A new brand key from `contentlib keys create --brand NAME` on the remote's home. */
export async function createKey(home: string, brand: string): Promise<string> {
  const r = await cli(home, ['keys', 'create', '--brand', brand]);
  const key = /cl_[A-Za-z0-9_-]{20,}/.exec(r.stdout)?.[0];
  if (r.exitCode !== 0 || !key) throw new Error(`keys create failed (${r.exitCode}): ${r.stdout} ${r.stderr}`);
  return key;
}

export function apiClient(baseUrl: string, apiKey: string): ApiClient {
  return createApiClient({ baseUrl, apiKey, retry: NO_WAIT_RETRY, sleep: async () => {} });
}

const MIME: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
};

/** One real upload: presign, PUT the fixture's bytes, complete. Returns the item. */
export async function upload(
  client: ApiClient,
  fixture: string,
  o: { type?: ContentType; contentItemId?: string; fileName?: string; durationSeconds?: number } = {},
): Promise<ContentItem> {
  const path = join(FIXTURES, fixture);
  const bytes = await readFile(path);
  const ext = fixture.slice(fixture.lastIndexOf('.'));
  const contentType = MIME[ext]!;
  const fileName = o.fileName ?? fixture.split('/').pop()!;
  const type = o.type ?? (contentType.startsWith('image/') ? 'carousel' : 'shortform');
  const p = await client.presign({ fileName, contentType, fileSize: bytes.length, type });
  const put = await request(p.presignedUrl, {
    method: 'PUT',
    body: bytes,
    headers: { 'content-type': contentType, 'content-length': String(bytes.length) },
  });
  const text = await put.body.text();
  if (put.statusCode !== 200 && put.statusCode !== 201 && put.statusCode !== 204)
    throw new Error(`PUT ${put.statusCode}: ${text}`);
  const done = await client.complete({
    key: p.key,
    fileName,
    contentType,
    fileSize: bytes.length,
    type,
    ...(o.durationSeconds ? { durationSeconds: o.durationSeconds } : {}),
    ...(o.contentItemId ? { contentItemId: o.contentItemId } : {}),
  });
  return done.item;
}

/** A shortform item with this title (uploaded, then renamed through the API). */
export async function seedShortform(client: ApiClient, title: string): Promise<ContentItem> {
  const item = await upload(client, 'video/clip-5s.mp4', { fileName: `${title.replace(/[^\w-]+/g, '_')}.mp4` });
  return (await client.patch(item.id, { title })).item;
}

/** A carousel of two images, added out of name order to show sortOrder is what counts. */
export async function seedCarousel(client: ApiClient, title: string): Promise<ContentItem> {
  const first = await upload(client, 'image/photo.png', { fileName: 'first.png' });
  await upload(client, 'image/photo.jpg', { fileName: 'second.jpg', contentItemId: first.id });
  return (await client.patch(first.id, { title })).item;
}
