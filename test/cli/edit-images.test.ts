// edit's image flags in-process against a real server on 127.0.0.1: runImageEdit called with its
// deps (the change, the dry run, the races it can lose, a service without the extension), and
// whole command lines through run() for what a person sees and the exit codes.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_WAIT_RETRY } from '../../src/api/retry.js';
import type { GetResponse } from '../../src/api/schemas.js';
import { type ImageEditDeps, runImageEdit } from '../../src/cli/commands/edit-images.js';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { createApiKey } from '../../src/server/admin.js';
import { inspectCarouselImage } from '../../src/upload/send/carousel-image.js';
import { apiClient, cli, upload } from '../support/cli-in-process.js';
import { FIXTURES } from '../support/paths.js';
import { type RemoteLibrary, startRemoteLibrary } from '../support/remote-library.js';
import { type SpecOnlyProxy, startSpecOnlyProxy } from '../support/spec-only-proxy.js';

let lib: RemoteLibrary;
let specOnly: SpecOnlyProxy;

beforeAll(async () => {
  lib = await startRemoteLibrary();
  specOnly = await startSpecOnlyProxy(lib.url);
});

afterAll(async () => {
  await specOnly?.close();
  await lib?.dispose();
});

/** A carousel of images named a.jpg, b.png, c.webp… (real fixture bytes), in that order. */
async function carousel(names = ['a.jpg', 'b.png', 'c.webp']): Promise<GetResponse> {
  const fixture = (name: string) => `image/photo${name.slice(name.lastIndexOf('.'))}`;
  const first = await upload(lib.client, fixture(names[0]!), { fileName: names[0]! });
  for (const name of names.slice(1))
    await upload(lib.client, fixture(name), { fileName: name, contentItemId: first.id });
  return lib.client.get(first.id);
}

const namesOf = (r: { files: ReadonlyArray<{ fileName?: string }> }) => r.files.map((f) => f.fileName);

function deps(c: ImageEditDeps['client'] = lib.client): ImageEditDeps {
  return {
    client: c,
    now: () => new Date(),
    sleep: async () => {},
    policy: NO_WAIT_RETRY,
    signal: new AbortController().signal,
  };
}

async function replacement(fixture: string) {
  const checked = await inspectCarouselImage(join(FIXTURES, fixture));
  if (!checked.ok) throw new Error(`${fixture} is not a carousel image`);
  return checked.file;
}

/** The command line against the remote, as the binary runs it. */
const run = (args: string[], baseUrl = lib.url) =>
  cli(lib.home, args, { env: { CONTENTLIB_BASE_URL: baseUrl, CONTENTLIB_API_KEY: lib.key } });

describe('runImageEdit', () => {
  it('reorders, removes and replaces, each answering the carousel as it now is', async () => {
    const c = await carousel(['a.jpg', 'b.png', 'c.webp', 'd.jpg']);
    const id = c.item.id;
    const order = await runImageEdit({ id, images: { order: 'c.webp,1' } }, deps());
    expect(order).toMatchObject({
      outcome: 'done',
      summary: 'the images in the order 3,1,2,4 (their positions before)',
    });
    expect(namesOf(order)).toEqual(['c.webp', 'a.jpg', 'b.png', 'd.jpg']);
    expect(order.item).toMatchObject({ id, createdAt: c.item.createdAt, fileName: 'c.webp' });

    const removed = await runImageEdit({ id, images: { removeImage: '2' } }, deps());
    expect(namesOf(removed)).toEqual(['c.webp', 'b.png', 'd.jpg']);
    expect(removed.files.map((f) => f.sortOrder)).toEqual([0, 1, 2]);

    const file = await replacement('image/photo.webp');
    const replaced = await runImageEdit(
      { id, images: { replaceImage: ['b.png', file.path] }, replacement: file },
      deps(),
    );
    expect(replaced.summary).toBe('image 2 (b.png) replaced by photo.webp');
    expect(namesOf(replaced)).toEqual(['c.webp', 'photo.webp', 'd.jpg']);
    expect(namesOf(await lib.client.get(id))).toEqual(['c.webp', 'photo.webp', 'd.jpg']);
  });

  it('--dry-run shows the result and changes nothing', async () => {
    const c = await carousel();
    const file = await replacement('image/photo.png');
    for (const images of [{ order: '3' }, { removeImage: '1' }, { replaceImage: ['2', file.path] }]) {
      const r = await runImageEdit({ id: c.item.id, images, replacement: file, dryRun: true }, deps());
      expect(r.outcome).toBe('dry-run');
    }
    const preview = await runImageEdit(
      { id: c.item.id, images: { replaceImage: ['2', file.path] }, replacement: file, dryRun: true },
      deps(),
    );
    expect(preview.files[1]).toMatchObject({
      id: null,
      fileKey: null,
      fileName: 'photo.png',
      path: file.path,
      sortOrder: 1,
    });
    const first = await runImageEdit({ id: c.item.id, images: { removeImage: '1' }, dryRun: true }, deps());
    // The item as it would be: its main file the new first image, its count and size with it.
    expect(first.item).toMatchObject({
      fileName: 'b.png',
      fileCount: 2,
      fileSize: c.files[1]!.fileSize! + c.files[2]!.fileSize!,
    });
    const after = await lib.client.get(c.item.id);
    expect(after.files.map((f) => f.id)).toEqual(c.files.map((f) => f.id));
    expect(after.item.updatedAt).toBe(c.item.updatedAt);
  });

  it('the order there already is sends nothing', async () => {
    const c = await carousel();
    const r = await runImageEdit({ id: c.item.id, images: { order: '1,2' } }, deps());
    expect(r.outcome).toBe('unchanged');
    expect((await lib.client.get(c.item.id)).item.updatedAt).toBe(c.item.updatedAt);
  });

  it('an image added between reading the carousel and reordering it: the service refuses, nothing changes (exit 1)', async () => {
    const c = await carousel();
    // Another client appends an image right after this command has read the carousel.
    const racing = {
      ...lib.client,
      get: async (id: string) => {
        const read = await lib.client.get(id);
        await upload(lib.client, 'image/photo.jpg', { fileName: 'late.jpg', contentItemId: id });
        return read;
      },
    };
    const err = await runImageEdit({ id: c.item.id, images: { order: '3,2,1' } }, deps(racing)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    expect(err).toMatchObject({ exitCode: EXIT.failure });
    expect((err as CliError).message).toBe(
      `Carousel ${c.item.id} changed while this command ran (an image was added, removed or replaced); nothing was changed.`,
    );
    expect(namesOf(await lib.client.get(c.item.id))).toEqual(['a.jpg', 'b.png', 'c.webp', 'late.jpg']);
  });

  it('an image removed meanwhile down to 2: the remove is refused in words (exit 1)', async () => {
    const c = await carousel();
    const racing = {
      ...lib.client,
      get: async (id: string) => {
        const read = await lib.client.get(id);
        await lib.client.removeImage(id, read.files[0]!.id);
        return read;
      },
    };
    const err = await runImageEdit({ id: c.item.id, images: { removeImage: '3' } }, deps(racing)).catch(
      (e: unknown) => e,
    );
    expect((err as CliError).message).toBe(
      `Carousel ${c.item.id} is down to 2 images, the fewest a carousel keeps; nothing was removed.`,
    );
    expect((err as CliError).exitCode).toBe(EXIT.failure);
    expect(namesOf(await lib.client.get(c.item.id))).toEqual(['b.png', 'c.webp']);
  });

  it('a service without the extension: said so with the manifest workaround (exit 1), nothing changed', async () => {
    const c = await carousel();
    const spec = apiClient(specOnly.url, lib.key);
    try {
      const file = await replacement('image/photo.jpg');
      for (const images of [{ order: '2,1' }, { removeImage: '1' }, { replaceImage: ['1', file.path] }]) {
        const err = await runImageEdit({ id: c.item.id, images, replacement: file }, deps(spec)).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(CliError);
        const e = err as CliError;
        expect(e.exitCode).toBe(EXIT.failure);
        expect(e.message).toBe(
          `The service at ${specOnly.url} does not offer changes to a carousel's images (reorder, remove, replace) over its API (an extension of contentlib serve).`,
        );
        expect(e.hint).toMatch(/^Nothing was changed\. The workaround: /);
        expect(e.hint).toContain('contentlib upload --manifest');
        expect(e.hint).toContain(`contentlib rm ${c.item.id}`);
      }
      expect(specOnly.refused).toEqual([
        `PUT /api/v1/content/${c.item.id}/order`,
        `DELETE /api/v1/content/${c.item.id}/files/${c.files[0]!.id}`,
        `PUT /api/v1/content/${c.item.id}/files/${c.files[0]!.id}`,
      ]);
      const after = await lib.client.get(c.item.id);
      expect(after.files.map((f) => f.id)).toEqual(c.files.map((f) => f.id));
    } finally {
      await spec.close();
    }
  });
});

describe('edit with image flags, as a command line', () => {
  it('--order prints the carousel in its new order with positions; --json has them too', async () => {
    const c = await carousel();
    const r = await run(['edit', c.item.id, '--order', '3,1']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('The images in the order 3,1,2 (their positions before).');
    expect(r.stdout).toContain('files.0.position\t1');
    expect(r.stdout).toContain('files.0.fileName\tc.webp');
    const show = await run(['show', c.item.id, '--jq', '.files[] | "\\(.position) \\(.sortOrder) \\(.fileName)"']);
    expect(show.stdout).toBe('1 0 c.webp\n2 1 a.jpg\n3 2 b.png');
  });

  it('--remove-image and --replace-image by name; the item keeps its id and createdAt', async () => {
    const c = await carousel();
    const removed = await run(['edit', c.item.id, '--remove-image', 'b.png', '--json', 'id,createdAt,fileCount']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ id: c.item.id, createdAt: c.item.createdAt, fileCount: 2 });
    const replaced = await run([
      'edit',
      c.item.id,
      '--replace-image',
      'A.JPG',
      join(FIXTURES, 'image/photo.png'),
      '--jq',
      '.files[] | .fileName',
    ]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(replaced.stdout).toBe('photo.png\nc.webp');
    expect(replaced.stderr).toContain('Image 1 (a.jpg) replaced by photo.png.');
  });

  it('--dry-run prints the result and changes nothing', async () => {
    const c = await carousel();
    const r = await run(['edit', c.item.id, '--remove-image', '1', '--dry-run', '--jq', '.files[] | .fileName']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('b.png\nc.webp');
    expect(r.stderr).toContain('Dry run, nothing was changed: image 1 (a.jpg) removed; the 2 images after it moved up');
    expect(namesOf(await lib.client.get(c.item.id))).toEqual(['a.jpg', 'b.png', 'c.webp']);
  });

  it.each([
    [['--order', '4'], '--order: position 4 is out of range; the carousel has 3 images (1–3).'],
    [['--order', '2,b.png'], '--order names image 2 twice (as 2 and as b.png).'],
    [['--remove-image', 'x.jpg'], '--remove-image: no image is named "x.jpg".'],
    [
      ['--replace-image', '1', join(FIXTURES, 'other/unsupported/photo.heic')],
      'is a HEIC image, which is not supported',
    ],
    [
      ['--replace-image', '1', join(FIXTURES, 'video/clip-5s.mp4')],
      'is a video; a carousel takes images (jpg, png, webp)',
    ],
    [['--replace-image', '1', join(FIXTURES, 'image/missing.jpg')], 'image/missing.jpg'],
    [['--replace-image', '1'], '--replace-image takes two values'],
    [['--order', '1', '--remove-image', '2'], '--order and --remove-image cannot be combined'],
    [['--order', '1', '--title', 'x'], '--order cannot be combined with --title'],
    [['--title', 'x', '--dry-run'], '--dry-run previews a change of a carousel’s images'],
  ])('%j exits 2 and changes nothing: %s', async (flags, message) => {
    const c = await carousel();
    const r = await run(['edit', c.item.id, ...flags]);
    expect(r.exitCode, r.stderr).toBe(EXIT.usage);
    expect(r.stderr).toContain(message);
    const after = await lib.client.get(c.item.id);
    expect(after.files.map((f) => f.id)).toEqual(c.files.map((f) => f.id));
    expect(after.item.updatedAt).toBe(c.item.updatedAt);
  });

  it('a video is no carousel (exit 2); an unknown id is not found (exit 5)', async () => {
    const clip = await upload(lib.client, 'video/clip-5s.mp4');
    const video = await run(['edit', clip.id, '--order', '1']);
    expect(video.exitCode).toBe(EXIT.usage);
    expect(video.stderr).toContain(`Item ${clip.id} is a shortform, not a carousel`);
    const unknown = await run(['edit', '6f1d2c3b-0000-4000-8000-000000000000', '--remove-image', '1']);
    expect(unknown.exitCode).toBe(EXIT.notFound);
  });

  it('a key without content:write may --dry-run, but not change (exit 4)', async () => {
    const c = await carousel();
    const reader = (await createApiKey(join(lib.serverHome, 'data'), 'acme', { scopes: ['content:read'] })).key;
    const env = { CONTENTLIB_BASE_URL: lib.url, CONTENTLIB_API_KEY: reader };
    const dry = await cli(lib.home, ['edit', c.item.id, '--order', '2', '--dry-run'], { env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    const refused = await cli(lib.home, ['edit', c.item.id, '--order', '2'], { env });
    expect(refused.exitCode).toBe(EXIT.auth);
    expect(refused.stderr).toContain('content:write');
  });

  it('against a service without the extension: exit 1, the workaround printed', async () => {
    const c = await carousel();
    const r = await run(['edit', c.item.id, '--order', '2,1'], specOnly.url);
    expect(r.exitCode).toBe(EXIT.failure);
    expect(r.stderr).toContain("does not offer changes to a carousel's images");
    expect(r.stderr).toContain('contentlib upload --manifest carousel.json');
  });
});
