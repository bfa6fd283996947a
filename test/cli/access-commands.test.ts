// keys, log and the scope refusals of the other commands, in-process: the real program (argv →
// flags → target → API → message and exit code) against a real server on 127.0.0.1.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { ROLES } from '../../src/api/scopes.js';
import { chooseKeysPlace, runKeysList } from '../../src/cli/commands/keys.js';
import { runLog } from '../../src/cli/commands/log.js';
import { EXIT, UsageError } from '../../src/cli/errors.js';
import { openConfig } from '../../src/config/store.js';
import { type InProcessCli, inProcessCli } from '../support/cli-run.js';
import { type TestServer, call, image, startTestServer, uploadItem } from '../support/server.js';

let s: TestServer;
let cli: InProcessCli;
let admin: { id: string; key: string };
beforeAll(async () => {
  s = await startTestServer();
  cli = await inProcessCli({ now: () => s.clock.now });
  admin = await s.makeKey('acme', { name: 'admin' });
});
afterAll(async () => {
  await cli.dispose();
  await s.dispose();
});

/** The environment of a CI job or a shell pointed at the server with a key. */
const remote = (key: string) => ({ CONTENTLIB_BASE_URL: s.url, CONTENTLIB_API_KEY: key });

describe('where keys commands work (chooseKeysPlace)', () => {
  const none = { profiles: {} };
  const loggedIn = { activeProfile: 'prod', profiles: { prod: { baseUrl: 'https://c.example.com', apiKey: 'cl_x' } } };
  const DB = 'postgres://cl@db/lib';
  it.each([
    ['nothing configured: the embedded library', {}, {}, {}, none, { kind: 'local', where: { dataDir: '/emb' } }],
    ['logged in to a remote: its API', {}, {}, {}, loggedIn, { kind: 'api' }],
    [
      '--data-dir, even logged in',
      { dataDir: '/srv' },
      {},
      {},
      loggedIn,
      { kind: 'local', where: { dataDir: '/srv' } },
    ],
    ['--db', { db: DB }, {}, {}, none, { kind: 'local', where: { dataDir: '/emb', databaseUrl: DB } }],
    ['--base-url with --api-key', {}, { baseUrl: 'https://x', apiKey: 'cl_k' }, {}, none, { kind: 'api' }],
    ['--profile', {}, { profile: 'prod' }, {}, loggedIn, { kind: 'api' }],
    [
      'CONTENTLIB_BASE_URL + KEY',
      {},
      {},
      { CONTENTLIB_BASE_URL: 'https://x', CONTENTLIB_API_KEY: 'k' },
      none,
      { kind: 'api' },
    ],
    [
      'CONTENTLIB_DATABASE_URL on the server',
      {},
      {},
      { CONTENTLIB_DATABASE_URL: DB },
      loggedIn,
      { kind: 'local', where: { dataDir: '/emb', databaseUrl: DB } },
    ],
    ['--embedded, even logged in', {}, { embedded: true }, {}, loggedIn, { kind: 'local', where: { dataDir: '/emb' } }],
  ] as const)('%s', (_what, flags, globals, env, config, expected) => {
    expect(chooseKeysPlace(flags, globals, env, config, '/emb')).toEqual(expected);
  });

  it.each([
    [{ dataDir: '/srv' }, { baseUrl: 'https://x' }],
    [{ db: DB }, { profile: 'prod' }],
    [{ dataDir: '/srv' }, { embedded: true }],
  ])('%j with %j is a usage error', (flags, globals) => {
    expect(() => chooseKeysPlace(flags, globals, {}, loggedIn, '/emb')).toThrow(UsageError);
  });
});

describe('keys over the API', () => {
  it('an admin key makes a read-only key; the target is named; the new key can read and nothing more', async () => {
    const r = await cli.run(['keys', 'create', '--name', 'dashboard', '--scope', 'content:read'], {
      env: remote(admin.key),
    });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const secret = r.stdout.trim();
    expect(secret).toMatch(/^cl_[A-Za-z0-9_-]{43}$/);
    expect(r.stderr).toContain(`→ ${s.url}`);
    expect(r.stderr).toMatch(new RegExp(`Created key [0-9a-f-]{36} "dashboard" at ${s.url} \\(content:read\\)`));
    expect((await call('GET', `${s.url}/api/v1/content`, { key: secret })).status).toBe(200);
    expect((await call('POST', `${s.url}/api/v1/upload/presign`, { key: secret, json: {} })).status).toBe(403);
    // Nothing was written to this machine's embedded library.
    expect(existsSync(join(cli.home, 'data'))).toBe(false);
  });

  it('logged in with a profile: keys go to the remote; --brand is refused there', async () => {
    const store = openConfig(join(cli.home, 'config'));
    await store.write({ activeProfile: 'prod', profiles: { prod: { baseUrl: s.url, apiKey: admin.key } } });
    try {
      const brand = await cli.run(['keys', 'create', '--brand', 'acme']);
      expect(brand.code).toBe(EXIT.usage);
      expect(brand.stderr).toContain('--brand does not apply over the API');
      const made = await cli.run([
        'keys',
        'create',
        '--name',
        'CI',
        '--role',
        'publisher',
        '--expires',
        '90d',
        '--json',
      ]);
      expect(made.code, made.stderr).toBe(EXIT.ok);
      expect(made.stderr).toContain(`→ profile prod at ${s.url}`);
      const created = JSON.parse(made.stdout) as Record<string, unknown>;
      expect(created).toMatchObject({
        name: 'CI',
        brand: null,
        scopes: ['content:read', 'content:write'],
        expiresAt: new Date(s.clock.now.getTime() + 90 * 86400_000).toISOString(),
      });
      const listed = await cli.run(['keys', 'list', '--json']);
      const keys = JSON.parse(listed.stdout) as Array<{ id: string; name: string | null }>;
      expect(keys.map((k) => k.name)).toEqual(expect.arrayContaining(['admin', 'CI']));
      expect(listed.stdout).not.toContain(String(created.key));
      expect(existsSync(join(cli.home, 'data'))).toBe(false);
    } finally {
      await store.write({ profiles: {} });
    }
  });

  it('a key without keys:admin is refused, saying which scope the command needs (exit 4)', async () => {
    const reader = await s.makeKey('acme', { scopes: ['content:read'] });
    for (const argv of [
      ['keys', 'create', '--role', 'reader'],
      ['keys', 'list'],
      ['keys', 'revoke', admin.id],
    ]) {
      const r = await cli.run(argv, { env: remote(reader.key) });
      expect([argv.join(' '), r.code]).toEqual([argv.join(' '), EXIT.auth]);
      expect(r.stderr).toContain('this command needs the scope keys:admin');
      expect(r.stderr).toContain('contentlib keys create --scope keys:admin');
    }
    const log = await cli.run(['log'], { env: remote(reader.key) });
    expect(log.code).toBe(EXIT.auth);
    expect(log.stderr).toContain('this command needs the scope audit:read');
  });

  it('support reads the history without managing keys: audit:read alone, or the editor role, runs log; keys create is refused', async () => {
    const support = await s.makeKey('acme', { name: 'support', scopes: ['audit:read'] });
    const editor = await s.makeKey('acme', { name: 'editor', scopes: [...ROLES.editor] });
    for (const key of [support.key, editor.key]) {
      const log = await cli.run(['log', '--json', 'action'], { env: remote(key) });
      expect(log.code, log.stderr).toBe(EXIT.ok);
      expect(JSON.parse(log.stdout)).toEqual(expect.arrayContaining([{ action: 'key.created' }]));
      const create = await cli.run(['keys', 'create', '--role', 'reader'], { env: remote(key) });
      expect(create.code).toBe(EXIT.auth);
      expect(create.stderr).toContain('this command needs the scope keys:admin');
    }
  });

  it('a key cannot grant what it lacks; revoke says unknown ids and guards the last admin key', async () => {
    const limited = await s.makeKey('limits', { name: 'limited admin', scopes: ['keys:admin', 'content:read'] });
    const grant = await cli.run(['keys', 'create', '--role', 'editor'], { env: remote(limited.key) });
    expect(grant.code).toBe(EXIT.auth);
    expect(grant.stderr).toContain('cannot grant content:write, content:delete');
    const unknown = await cli.run(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], {
      env: remote(limited.key),
    });
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toContain('No key with id 00000000-0000-4000-8000-000000000000 in your brand');
    const last = await cli.run(['keys', 'revoke', limited.id], { env: remote(limited.key) });
    expect(last.code).toBe(EXIT.failure);
    expect(last.stderr).toContain("the brand's last key with keys:admin");
    const spare = JSON.parse(
      (await cli.run(['keys', 'create', '--name', 'spare', '--role', 'reader', '--json'], { env: remote(limited.key) }))
        .stdout,
    ) as { id: string; key: string };
    const revoked = await cli.run(['keys', 'revoke', spare.id], { env: remote(limited.key) });
    expect(revoked.code).toBe(EXIT.ok);
    expect(revoked.stderr).toContain(`Revoked key ${spare.id}.`);
    expect((await call('GET', `${s.url}/api/v1/content`, { key: spare.key })).status).toBe(401);
  });

  it('a service without the key extension is said to be one (exit 1), pointing at the server’s machine', async () => {
    const noSuchEndpoint = new ApiError({
      status: 404,
      code: 'not_found',
      message: 'no endpoint GET /api/v1/keys',
      method: 'GET',
      url: 'https://other.example.com/api/v1/keys',
    });
    const client = {
      createKey: async () => Promise.reject(noSuchEndpoint),
      listKeys: async () => Promise.reject(noSuchEndpoint),
      revokeKey: async () => Promise.reject(noSuchEndpoint),
    };
    const err = await runKeysList({ kind: 'api', client, baseUrl: 'https://other.example.com' }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ exitCode: EXIT.failure });
    expect(String((err as Error).message)).toContain('does not offer key management over its API');
    const log = await runLog({}, { client: { baseUrl: 'https://other.example.com', audit: client.listKeys } }).catch(
      (e: unknown) => e,
    );
    expect(String((log as Error).message)).toContain('does not offer an audit log over its API');
  });
});

describe('keys on the server’s machine', () => {
  it('--data-dir: made in that database with its scopes and expiry, the target named', async () => {
    const dir = join(cli.home, 'library');
    const r = await cli.run([
      'keys',
      'create',
      '--brand',
      'acme',
      '--data-dir',
      dir,
      '--scope',
      'content:read,content:delete',
      '--expires',
      '12h',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stderr).toContain(`→ embedded library at ${dir}`);
    expect(r.stderr).toContain('for brand "acme" (content:read, content:delete, expires');
    const made = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(made).toMatchObject({
      brand: 'acme',
      scopes: ['content:read', 'content:delete'],
      expiresAt: new Date(s.clock.now.getTime() + 12 * 3600_000).toISOString(),
    });
    const listed = await cli.run(['keys', 'list', '--data-dir', dir]);
    expect(listed.stdout.split('\t')[0]).toBe(made.id);
    const revoked = await cli.run(['keys', 'revoke', String(made.id), '--data-dir', dir]);
    expect(revoked.code).toBe(EXIT.ok);
  });

  it.each([
    [['keys', 'create', '--brand', 'a', '--role', 'owner'], 'Error: Option'],
    [['keys', 'create', '--brand', 'a', '--scope', 'content:all'], 'unknown scope "content:all"'],
    [['keys', 'create', '--brand', 'a', '--expires', '90'], '--expires must be a positive duration'],
    [['keys', 'create', '--brand', 'a', '--expires', '0d'], '--expires must be a positive duration'],
    [['keys', 'create', '--data-dir', '/tmp/x'], '--brand is required'],
    [['keys', 'create', '--brand', 'ac\u001b[31mme'], '--brand must not contain control characters'],
    [['keys', 'create', '--brand', 'x'.repeat(101)], '--brand must be at most 100 characters'],
    [['keys', 'create', '--brand', 'a', '--name', 'CI\u0000'], '--name must not contain control characters'],
    [['keys', 'create', '--brand', 'a', '--name', '\u200b'], '--name must contain a visible character'],
  ])('%j is a usage error: %s', async (argv, message) => {
    const r = await cli.run(argv);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain(message);
  });
});

describe('the scope a command needs', () => {
  let id: string;
  beforeAll(async () => {
    id = (await uploadItem(s, admin.key, image('kept.jpg'))).item.id;
  });

  it('a reader may ls and show; edit and rm exit 4 naming the scope, and change nothing', async () => {
    const reader = await s.makeKey('acme', { name: 'reader', scopes: ['content:read'] });
    const env = remote(reader.key);
    expect((await cli.run(['ls'], { env })).code).toBe(EXIT.ok);
    expect((await cli.run(['show', id], { env })).code).toBe(EXIT.ok);
    const edit = await cli.run(['edit', id, '--title', 'Nope'], { env });
    expect(edit.code).toBe(EXIT.auth);
    expect(edit.stderr).toContain(
      'this command needs the scope content:write (to upload (presign, complete) and edit items)',
    );
    const rm = await cli.run(['rm', '--yes', id], { env });
    expect(rm.code).toBe(EXIT.auth);
    expect(rm.stderr).toContain('this command needs the scope content:delete');
    const still = await call<{ item: { title: string } }>('GET', `${s.url}/api/v1/content/${id}`, { key: admin.key });
    expect(still.body.item.title).toBe('kept');
  });

  it('a key without content:read is refused by ls; auth status and login still accept it', async () => {
    const writer = await s.makeKey('acme', { scopes: ['content:write'] });
    const login = await cli.run(['login', '--with-token', '--base-url', s.url, '--profile', 'ci'], {
      stdin: writer.key,
    });
    expect(login.code, login.stderr).toBe(EXIT.ok);
    expect((await cli.run(['logout', '--profile', 'ci'])).code).toBe(EXIT.ok);
    const ls = await cli.run(['ls'], { env: remote(writer.key) });
    expect(ls.code).toBe(EXIT.auth);
    expect(ls.stderr).toContain('needs the scope content:read');
    const status = await cli.run(['auth', 'status', '--json'], { env: remote(writer.key) });
    expect(status.code).toBe(EXIT.ok);
    expect(JSON.parse(status.stdout)).toMatchObject({ ok: true });
  });
});

describe('log', () => {
  it('prints the latest entries oldest first, filtered by item, key and time', async () => {
    const brand = `logged-${Date.now()}`;
    const boss = await s.makeKey(brand, { name: 'boss' });
    const alice = await s.makeKey(brand, { name: 'Alice', scopes: ['content:read', 'content:write'] });
    const a = (await uploadItem(s, boss.key, image('a.jpg'))).item.id;
    const b = (await uploadItem(s, boss.key, image('b.jpg'))).item.id;
    await call('PATCH', `${s.url}/api/v1/content/${a}`, { key: alice.key, json: { status: 'published' } });
    const env = remote(boss.key);

    const all = JSON.parse((await cli.run(['log', '--json'], { env })).stdout) as Array<Record<string, unknown>>;
    expect(all.map((e) => [e.action, e.keyName])).toEqual([
      ['key.created', null],
      ['key.created', null],
      ['item.created', 'boss'],
      ['item.created', 'boss'],
      ['item.updated', 'Alice'],
    ]);
    const ofA = JSON.parse((await cli.run(['log', a, '--json', 'action,keyName'], { env })).stdout) as unknown[];
    expect(ofA).toEqual([
      { action: 'item.created', keyName: 'boss' },
      { action: 'item.updated', keyName: 'Alice' },
    ]);
    const byAlice = (await cli.run(['log', '--key', alice.id], { env })).stdout.trimEnd().split('\n');
    expect(byAlice).toHaveLength(1);
    expect(byAlice[0]!.split('\t')).toEqual([
      s.clock.now.toISOString(),
      'item.updated',
      a,
      alice.id,
      'Alice',
      expect.any(String),
      'status "draft" → "published"',
    ]);
    const latest = JSON.parse(
      (await cli.run(['log', '--limit', '2', '--json', 'itemId'], { env })).stdout,
    ) as unknown[];
    expect(latest).toEqual([{ itemId: b }, { itemId: a }]);
    expect(JSON.parse((await cli.run(['log', '--since', '1h', '--json'], { env })).stdout)).toHaveLength(5);
    expect(JSON.parse((await cli.run(['log', '--since', '2099-01-01', '--json'], { env })).stdout)).toEqual([]);
    const bad = await cli.run(['log', '--since', 'last week'], { env });
    expect(bad.code).toBe(EXIT.usage);
  });

  it('show names who created the item and who changed it last', async () => {
    const brand = `shown-${Date.now()}`;
    const ci = await s.makeKey(brand, { name: 'CI', scopes: ['content:write'] });
    const alice = await s.makeKey(brand, { name: 'Alice', scopes: ['content:read', 'content:write'] });
    const id = (await uploadItem(s, ci.key, image('c.jpg'))).item.id;
    await call('PATCH', `${s.url}/api/v1/content/${id}`, { key: alice.key, json: { title: 'Changed' } });
    const plain = (await cli.run(['show', id], { env: remote(alice.key) })).stdout;
    expect(plain).toContain(`createdBy\tCI (key ${ci.id})`);
    expect(plain).toContain(`updatedBy\tAlice (key ${alice.id})`);
    const json = JSON.parse(
      (await cli.run(['show', id, '--json', 'createdBy,updatedBy'], { env: remote(alice.key) })).stdout,
    );
    expect(json).toEqual({
      createdBy: { keyId: ci.id, keyName: 'CI', at: s.clock.now.toISOString() },
      updatedBy: { keyId: alice.id, keyName: 'Alice', at: s.clock.now.toISOString() },
    });
  });
});
