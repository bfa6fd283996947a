// contentlib keys on the embedded server's data dir, each command line run in-process as the
// binary would run it (test/support/cli-in-process.ts).
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli-in-process.js';
import { tempDirEach } from '../support/tree.js';

const home = tempDirEach('contentlib-keys-');

describe('contentlib keys', () => {
  it('create prints the key alone on stdout, list never shows it, revoke stops it', async () => {
    const created = await cli(home(), ['keys', 'create', '--brand', 'acme']);
    expect(created.exitCode).toBe(0);
    const key = String(created.stdout).trim();
    expect(key).toMatch(/^cl_[A-Za-z0-9_-]{43}$/);
    expect(String(created.stderr)).toMatch(/will not be shown again/);

    const listed = await cli(home(), ['keys', 'list', '--json']);
    expect(listed.exitCode).toBe(0);
    expect(String(listed.stdout)).not.toContain(key);
    const rows = JSON.parse(String(listed.stdout)) as Array<{
      id: string;
      brand: string;
      prefix: string;
      revokedAt: string | null;
    }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ brand: 'acme', prefix: key.slice(0, 7), revokedAt: null });

    const plain = await cli(home(), ['keys', 'list']);
    expect(String(plain.stdout).split('\t').slice(0, 3)).toEqual([rows[0]!.id, `${key.slice(0, 7)}…`, 'acme']);

    expect((await cli(home(), ['keys', 'revoke', rows[0]!.id])).exitCode).toBe(0);
    const again = await cli(home(), ['keys', 'revoke', rows[0]!.id]);
    // Revoking again (a script re-run) is done, not an error; an unknown id is not found.
    expect(again.exitCode).toBe(0);
    expect(String(again.stderr)).toMatch(/was already revoked \(\d{4}-.*\); nothing to do/);
    const unknown = await cli(home(), ['keys', 'revoke', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.exitCode).toBe(5);
    expect(String(unknown.stderr)).toMatch(/No key with id/);
  });

  it('create without --brand is a usage error', async () => {
    const r = await cli(home(), ['keys', 'create']);
    expect(r.exitCode).toBe(2);
    expect(String(r.stdout)).toBe('');
  });
});
