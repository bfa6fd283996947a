// Profiles, in-process against a real server: login --profile makes it the active one, logout of
// the active profile falls back to `default` when it exists and says so, and with profiles saved
// but none active the embedded library is never used without a word. Also the small input rough
// edges of issue 29: a hashtag with a space, and keys revoke of a revoked key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/errors.js';
import { cli, readConfig, tempHome } from '../support/cli-in-process.js';
import { type TestServer, startTestServer } from '../support/server.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ clock: 'real' });
  key = await server.key('acme');
});
afterAll(() => server.dispose());

const quick = { CONTENTLIB_RETRY_BASE_MS: '0' };

describe('profiles', () => {
  it('login --profile makes it the active one; logout of it falls back to default, and says so', async () => {
    const home = await tempHome();
    try {
      const login = (profile: string) =>
        cli(home.dir, ['login', '--with-token', '--base-url', server.url, '--profile', profile], {
          input: key,
          env: quick,
        });
      expect((await login('default')).exitCode).toBe(EXIT.ok);
      const staging = await login('staging');
      expect(staging.exitCode).toBe(EXIT.ok);
      expect(staging.stderr).toContain('as profile "staging"');
      expect(staging.stderr).toContain('it is now the active profile');
      expect((await readConfig(home.dir)).activeProfile).toBe('staging');
      // Commands use it with no --profile and no config set.
      const ls = await cli(home.dir, ['ls'], { env: quick });
      expect(ls.stderr).toContain(`→ profile staging at ${server.url}`);

      const out = await cli(home.dir, ['logout', '--json'], { env: quick });
      expect(out.exitCode).toBe(EXIT.ok);
      expect(JSON.parse(out.stdout)).toEqual({ profile: 'staging', removed: true, activeProfile: 'default' });
      expect(out.stderr).toContain('Logged out: profile "staging" and its key were removed.');
      expect(out.stderr).toContain('Profile "default" is now the active one.');
      expect((await cli(home.dir, ['ls'], { env: quick })).stderr).toContain(`→ profile default at ${server.url}`);
    } finally {
      await home.remove();
    }
  });

  it('logout of the active profile with no default left: no profile is active, said at logout and by every command after', async () => {
    const home = await tempHome();
    try {
      for (const profile of ['prod', 'staging'])
        await cli(home.dir, ['login', '--with-token', '--base-url', server.url, '--profile', profile], {
          input: key,
          env: quick,
        });
      const out = await cli(home.dir, ['logout'], { env: quick });
      expect(out.stderr).toContain('Logged out: profile "staging"');
      expect(out.stderr).toContain(
        'No profile is active now; commands use the embedded library on this machine until you choose one: contentlib config set active-profile prod  (saved: prod)',
      );
      expect((await readConfig(home.dir)).activeProfile).toBeUndefined();
      // Reading falls back to the embedded library, and the target line says why (the test
      // environment's CONTENTLIB_EMBEDDED=1, a choice on purpose, is left out here).
      const ls = await cli(home.dir, ['ls'], { env: { ...quick, CONTENTLIB_EMBEDDED: undefined } });
      expect(ls.exitCode).toBe(EXIT.ok);
      expect(ls.stderr).toContain(
        '(no active profile; saved: prod; choose one with contentlib config set active-profile prod, or --profile NAME)',
      );
      // The last one: nothing is left, and it says where commands go now.
      const last = await cli(home.dir, ['logout', '--profile', 'prod', '--json'], { env: quick });
      expect(JSON.parse(last.stdout)).toEqual({ profile: 'prod', removed: true, activeProfile: null });
      expect(last.stderr).toContain('No profile is left: commands now use the embedded library on this machine');
    } finally {
      await home.remove();
    }
  });
});

describe('input rough edges', () => {
  it('a hashtag written with a space is a warning that says what it became (edit)', async () => {
    const home = await tempHome();
    try {
      const env = { ...quick, CONTENTLIB_BASE_URL: server.url, CONTENTLIB_API_KEY: key };
      const up = await cli(home.dir, ['upload', 'fixtures/video/clip-5s.mp4', '--json'], {
        env,
        cwd: process.cwd(),
      });
      expect(up.exitCode, up.stderr).toBe(EXIT.ok);
      const id = (JSON.parse(up.stdout.split('\n').pop()!) as { items: Array<{ id: string }> }).items[0]!.id;
      const r = await cli(home.dir, ['edit', id, '--hashtags', 'vlog, #daily life', '--json', 'hashtags'], { env });
      expect(r.exitCode).toBe(EXIT.ok);
      expect(JSON.parse(r.stdout)).toEqual({ hashtags: ['vlog', 'daily', 'life'] });
      expect(r.stderr).toContain(
        'Warning: --hashtags "#daily life" became 2 hashtags, #daily and #life: a hashtag holds no spaces. For one, write #daily_life or #dailylife.',
      );
      // A list separated by spaces alone is a list: no warning.
      const plain = await cli(home.dir, ['edit', id, '--hashtags', '#summer #sale'], { env });
      expect(plain.stderr).not.toContain('Warning');
      const added = await cli(home.dir, ['edit', id, '--add-hashtag', 'daily life'], { env });
      expect(added.stderr).toContain('Warning: --add-hashtag "daily life" became 2 hashtags');
    } finally {
      await home.remove();
    }
  });

  it('keys revoke of a revoked key succeeds (exit 0) and says it was already revoked', async () => {
    const home = await tempHome();
    try {
      const dataDir = `${home.dir}/lib`;
      const created = await cli(home.dir, ['keys', 'create', '--brand', 'acme', '--data-dir', dataDir, '--json']);
      const { id } = JSON.parse(created.stdout) as { id: string };
      expect((await cli(home.dir, ['keys', 'revoke', id, '--data-dir', dataDir])).exitCode).toBe(EXIT.ok);
      const again = await cli(home.dir, ['keys', 'revoke', id, '--data-dir', dataDir, '--json']);
      expect(again.exitCode).toBe(EXIT.ok);
      expect(again.stderr).toMatch(new RegExp(`Key ${id} was already revoked \\(\\d{4}-[^)]+\\); nothing to do.`));
      expect(JSON.parse(again.stdout)).toMatchObject({ id, revoked: true, alreadyRevoked: expect.any(String) });
      const unknown = await cli(home.dir, [
        'keys',
        'revoke',
        '00000000-0000-4000-8000-000000000000',
        '--data-dir',
        dataDir,
      ]);
      expect(unknown.exitCode).toBe(EXIT.notFound);
    } finally {
      await home.remove();
    }
  });
});
