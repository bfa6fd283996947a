// The config file: written 0600 (and repaired to 0600 when found wider), read back whole.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/errors.js';
import { openConfig } from '../../src/config/store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (p: string) => (await stat(p)).mode & 0o777;

describe('config store', () => {
  it('writes profiles and the embedded key, mode 0600, in a 0700 folder', async () => {
    const store = openConfig(join(dir, 'config'));
    await store.write({
      activeProfile: 'p',
      profiles: { p: { baseUrl: 'https://x', apiKey: 'cl_secret' } },
      embedded: { dataDir: '/d', brand: 'local', keyId: 'k', apiKey: 'cl_e' },
    });
    expect(await mode(store.path)).toBe(0o600);
    expect(await mode(join(dir, 'config'))).toBe(0o700);
    expect(openConfig(join(dir, 'config')).read()).toEqual({
      activeProfile: 'p',
      profiles: { p: { baseUrl: 'https://x', apiKey: 'cl_secret' } },
      embedded: { dataDir: '/d', brand: 'local', keyId: 'k', apiKey: 'cl_e' },
    });
  });

  it('repairs a file that others could read on the next write', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, '{"profiles":{}}');
    await chmod(path, 0o644);
    const store = openConfig(dir);
    await store.write({ profiles: {} });
    expect(await mode(path)).toBe(0o600);
  });

  it('an empty or missing file reads as no profiles', () => {
    expect(openConfig(dir).read()).toEqual({ profiles: {} });
  });

  it('a broken file is a clear error naming it, and is not overwritten', async () => {
    const path = join(dir, 'config.json');
    await writeFile(path, '{broken');
    let err: unknown;
    try {
      openConfig(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toContain(path);
    expect(await readFile(path, 'utf8')).toBe('{broken');
  });
});
