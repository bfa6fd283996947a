// Presigned URLs: `{base}/storage/{key}?expires=…&signature=…`, an HMAC-SHA256 over the method,
// key, expiry and (for PUT) the signed Content-Type and Content-Length (docs/api.md: PUT {presignedUrl}, File URLs).
// The secret lives in the data dir, so URLs handed out survive a restart.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface SignedFields {
  method: 'PUT' | 'GET';
  key: string;
  /** Unix time in seconds after which the URL is refused. */
  expires: number;
  /** PUT only: the exact Content-Type and Content-Length the upload must carry. */
  contentType?: string;
  contentLength?: number;
}

export function sign(secret: Buffer, f: SignedFields): string {
  const text = [
    f.method,
    f.key,
    String(f.expires),
    f.contentType ?? '',
    f.contentLength === undefined ? '' : String(f.contentLength),
  ].join('\n');
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** Constant-time check of a signature taken from a URL (any string, possibly garbage). */
export function verify(secret: Buffer, f: SignedFields, signature: string): boolean {
  const expected = Buffer.from(sign(secret, f), 'hex');
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The URL path of a key: each segment percent-encoded, so unicode and spaces survive. */
export function storagePath(key: string): string {
  return `/storage/${key.split('/').map(encodeURIComponent).join('/')}`;
}

export function signedUrl(baseUrl: string, secret: Buffer, f: SignedFields): string {
  const query = new URLSearchParams({ expires: String(f.expires), signature: sign(secret, f) });
  return `${baseUrl}${storagePath(f.key)}?${query.toString()}`;
}

/** Reads the data dir's signing secret, creating it (mode 0600) on first start. */
export async function loadSecret(dataDir: string): Promise<Buffer> {
  const file = join(dataDir, 'secret');
  let text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    return undefined;
  });
  if (text === undefined) {
    await createSecret(file);
    text = await readFile(file, 'utf8');
  }
  text = text.trim();
  if (!/^[0-9a-f]{64}$/.test(text)) {
    throw new Error(
      `the signing secret in ${file} is damaged; delete it to create a new one (issued URLs then stop working)`,
    );
  }
  return Buffer.from(text, 'hex');
}

/**
 * Makes the secret unless another process just did. It is written whole under a name of its
 * own, then linked into place: a link fails when the secret exists, so two processes starting
 * together never overwrite each other, and neither can read a secret created but not yet
 * written (what a write to the final name with 'wx' allowed: "the signing secret is damaged"
 * when two commands first used the embedded library at once).
 */
async function createSecret(file: string): Promise<void> {
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  try {
    await link(temp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    // A file system without hard links: rename, which is whole too (the last of two such starts wins).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') await rename(temp, file);
    else throw err;
  } finally {
    await rm(temp, { force: true });
  }
}
