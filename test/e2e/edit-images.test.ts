// A carousel's images changed after upload with the built binary (bin/contentlib.js), on the
// embedded library, as a person runs it: --order, --remove-image, --replace-image and their
// errors with their exit codes; the item keeps its id and createdAt throughout. What the flags
// mean and every refusal are tested in-process (test/cli/edit-images.test.ts, edit-image-flags.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempHome } from '../support/cli.js';
import { FIXTURES } from '../support/paths.js';

interface Shown {
  id: string;
  createdAt: string;
  updatedAt: string;
  files: Array<{ position: number; sortOrder: number; fileName: string }>;
}

describe('edit a carousel’s images through the binary', () => {
  let home: Awaited<ReturnType<typeof tempHome>>;
  let id: string;
  let created: Shown;
  const show = async (): Promise<Shown> => JSON.parse((await cli(home.dir, ['show', id, '--json'])).stdout) as Shown;
  const order = (s: Shown) => s.files.map((f) => `${f.position}:${f.sortOrder}:${f.fileName}`);
  /** What a refused command must leave as it was (URLs are signed afresh by each run). */
  const state = (s: Shown) => ({ order: order(s), updatedAt: s.updatedAt });

  beforeAll(async () => {
    home = await tempHome();
    const images = ['photo.jpg', 'photo.png', 'photo.webp'].map((f) => `${FIXTURES}/image/${f}`);
    const up = await cli(home.dir, ['upload', '--carousel', '--title', 'trip', '--json', ...images]);
    expect(up.exitCode, up.stderr).toBe(0);
    id = (JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { items: Array<{ id: string }> }).items[0]!.id;
    created = await show();
    expect(order(created)).toEqual(['1:0:photo.jpg', '2:1:photo.png', '3:2:photo.webp']);
  });
  afterAll(async () => home?.remove());

  it('--order, then its errors: out of range and a position given twice (exit 2, nothing changed)', async () => {
    const moved = await cli(home.dir, ['edit', id, '--order', '3,1']);
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect(moved.stderr).toContain('The images in the order 3,1,2 (their positions before).');
    const after = await show();
    expect(order(after)).toEqual(['1:0:photo.webp', '2:1:photo.jpg', '3:2:photo.png']);

    const outOfRange = await cli(home.dir, ['edit', id, '--order', '4,1']);
    expect(outOfRange.exitCode).toBe(2);
    expect(outOfRange.stderr).toContain('--order: position 4 is out of range; the carousel has 3 images (1–3).');
    const twice = await cli(home.dir, ['edit', id, '--order', '1,photo.webp']);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain('--order names image 1 twice (as 1 and as photo.webp).');
    expect(state(await show())).toEqual(state(after));
  });

  it('--replace-image: an unsupported file is refused before anything is sent (exit 2); an image takes the place', async () => {
    const before = await show();
    const gif = await cli(home.dir, [
      'edit',
      id,
      '--replace-image',
      '2',
      `${FIXTURES}/other/unsupported/animation.gif`,
    ]);
    expect(gif.exitCode).toBe(2);
    expect(gif.stderr).toContain('1 problem found; the carousel was not changed');
    expect(gif.stderr).not.toContain('→'); // the library was not even opened
    expect(state(await show())).toEqual(state(before));

    const replaced = await cli(home.dir, [
      'edit',
      id,
      '--replace-image',
      'photo.jpg',
      `${FIXTURES}/image/png-named.jpg`,
    ]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(order(await show())).toEqual(['1:0:photo.webp', '2:1:png-named.jpg', '3:2:photo.png']);
  });

  it('--remove-image down to 2, and the refusal below (exit 2); --dry-run changes nothing', async () => {
    const dry = await cli(home.dir, ['edit', id, '--remove-image', '1', '--dry-run', '--jq', '.files[].fileName']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toBe('png-named.jpg\nphoto.png');
    expect((await show()).files).toHaveLength(3);

    const removed = await cli(home.dir, ['edit', id, '--remove-image', '1']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(order(await show())).toEqual(['1:0:png-named.jpg', '2:1:photo.png']);
    const refused = await cli(home.dir, ['edit', id, '--remove-image', '2']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      'The carousel has 2 images, and a carousel keeps at least 2; nothing was removed.',
    );

    // The same item all along: its id and createdAt, and updatedAt moved.
    const last = await show();
    expect(last.id).toBe(created.id);
    expect(last.createdAt).toBe(created.createdAt);
    expect(last.updatedAt > created.updatedAt).toBe(true);
    const plain = await cli(home.dir, ['show', id]);
    expect(plain.stdout).toContain('files.1.position\t2');
  });
});
