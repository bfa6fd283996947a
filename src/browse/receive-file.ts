// The thumbnail form's one file, from a multipart/form-data body to a temp file (busboy parses
// the body as it streams: nothing is buffered whole, and a file over the limit is cut off and
// refused rather than stored). The caller checks the file and removes the folder.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';

export interface ReceivedFile {
  /** The temp file; its folder is removed by `dispose`. */
  path: string;
  /** The name the browser gave (for messages only: it never becomes a path). */
  name: string;
  dispose(): Promise<void>;
}

export class FormProblem extends Error {
  override name = 'FormProblem';
}

/** A short extension of the given name, kept so the file's name and bytes can be compared; else none. */
function safeExtension(name: string): string {
  const ext = extname(name).toLowerCase();
  return /^\.[a-z0-9]{1,5}$/.test(ext) ? ext : '';
}

export async function receiveFile(
  body: Readable,
  headers: IncomingHttpHeaders,
  o: { field: string; maxBytes: number; what: string },
): Promise<ReceivedFile> {
  const dir = await mkdtemp(join(tmpdir(), 'contentlib-browse-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const file = await new Promise<ReceivedFile>((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({ headers, limits: { files: 1, fileSize: o.maxBytes, fields: 10, parts: 11 } });
      } catch (err) {
        reject(new FormProblem(`The form could not be read (${(err as Error).message}).`));
        return;
      }
      let saving: Promise<ReceivedFile | undefined> | undefined;
      parser.on('file', (field, stream, info) => {
        if (field !== o.field || saving) {
          stream.resume();
          return;
        }
        const path = join(dir, `upload${safeExtension(info.filename ?? '')}`);
        let cut = false;
        stream.on('limit', () => (cut = true));
        saving = pipeline(stream, createWriteStream(path, { mode: 0o600 })).then(() => {
          if (cut)
            throw new FormProblem(`${o.what} is larger than the limit; choose a smaller file. Nothing was changed.`);
          if (!info.filename) return undefined;
          return { path, name: info.filename, dispose };
        });
      });
      parser.on('error', (err: Error) => reject(new FormProblem(`The form could not be read (${err.message}).`)));
      parser.on('close', () => {
        if (!saving) return reject(new FormProblem(`Choose ${o.what} to send. Nothing was changed.`));
        saving.then(
          (f) => (f ? resolve(f) : reject(new FormProblem(`Choose ${o.what} to send. Nothing was changed.`))),
          reject,
        );
      });
      body.pipe(parser);
    });
    return file;
  } catch (err) {
    await dispose();
    throw err;
  }
}
