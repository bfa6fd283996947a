// Folders of media for tests: fixtures copied into a temp folder, by layout or by shape.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { FIXTURES } from './paths.js';

/** A fresh temp folder for each test, removed after it; call the returned function inside a test. */
export function tempDirEach(prefix: string): () => string {
  let dir: string | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error('tempDirEach: the folder exists only while a test runs');
    return dir;
  };
}

/** Writes files under `root`: { 'to/path': 'fixture/path' } copies a fixture, a Buffer is written as is. */
export async function layout(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [to, from] of Object.entries(files)) {
    await mkdir(dirname(join(root, to)), { recursive: true });
    if (typeof from === 'string') await cp(join(FIXTURES, from), join(root, to));
    else await writeFile(join(root, to), from);
  }
}

/** A shoot folder as a phone and a desktop leave it, for `layout`: media, what is skipped and why. */
export const SHOOT = {
  'shoot/a.mp4': 'video/clip-5s.mp4',
  'shoot/pics/1.jpg': 'image/photo.jpg',
  'shoot/pics/2.png': 'image/photo.png',
  'shoot/pics/3.heic': 'other/unsupported/photo.heic',
  'shoot/loop.gif': 'other/unsupported/animation.gif',
  'shoot/notes.txt': 'other/notes.txt',
  'shoot/.DS_Store': Buffer.alloc(0),
  'shoot/pics/Thumbs.db': Buffer.alloc(0),
};

const ALBUM_IMAGES = ['image/photo.jpg', 'image/photo.png', 'image/photo.webp'];

/**
 * A fixture's bytes made its own with `tag`: appended after an image's end (still the same
 * image to every reader), or written over the start of a video's `mdat` payload (sample data, not
 * structure). Copies of one fixture would otherwise be the same content, which an upload finds
 * in the library by its checksum and does not send again.
 */
export async function distinctCopy(fixture: string, dest: string, tag: string): Promise<void> {
  const bytes = await readFile(join(FIXTURES, fixture));
  if (!fixture.endsWith('.mp4') && !fixture.endsWith('.mov')) {
    await writeFile(dest, Buffer.concat([bytes, Buffer.from(tag)]));
    return;
  }
  for (let offset = 0; offset + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(offset);
    if (bytes.toString('latin1', offset + 4, offset + 8) === 'mdat' && size >= 8 + tag.length) {
      bytes.write(tag, offset + 8, 'latin1');
      await writeFile(dest, bytes);
      return;
    }
    if (size < 8) break;
    offset += size;
  }
  throw new Error(`${fixture}: no mdat box with room for "${tag}"`);
}

/** `folders` folders `album-N` of 3 images (one carousel each) and `videos` videos `clip-N.mp4`, all distinct files. */
export async function albumsAndClips(root: string, folders: number, videos: number): Promise<void> {
  await mkdir(root, { recursive: true });
  for (let f = 0; f < folders; f++) {
    const d = join(root, `album-${f}`);
    await mkdir(d, { recursive: true });
    for (const [i, img] of ALBUM_IMAGES.entries()) {
      const ext = img.slice(img.lastIndexOf('.') + 1);
      await distinctCopy(img, join(d, `${i + 1}.${ext}`), `album-${f}`);
    }
  }
  for (let v = 0; v < videos; v++) await distinctCopy('video/clip-5s.mp4', join(root, `clip-${v}.mp4`), `clip-${v}`);
}
