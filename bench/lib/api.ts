// The few raw API calls the references need (what a script author would do with fetch), and
// the reference PUT itself: curl -T of a presigned URL.
import { type RunOptions, type RunResult, run } from './proc.js';

export interface Target {
  url: string;
  key: string;
}

async function json<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export interface Presigned {
  presignedUrl: string;
  key: string;
  type: string;
}

export async function presign(
  t: Target,
  body: { fileName: string; contentType: string; fileSize: number; type?: string },
): Promise<Presigned> {
  const res = await fetch(`${t.url}/api/v1/upload/presign`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return json<Presigned>(res, 'presign');
}

export async function complete(t: Target, body: Record<string, unknown>): Promise<{ contentItemId: string }> {
  const res = await fetch(`${t.url}/api/v1/upload/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return json<{ contentItemId: string }>(res, 'complete');
}

export async function remove(t: Target, id: string): Promise<void> {
  const res = await fetch(`${t.url}/api/v1/content/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${t.key}` },
  });
  await json(res, 'delete');
}

export async function put(url: string, body: Buffer, contentType: string): Promise<void> {
  const res = await fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body });
  if (!res.ok) throw new Error(`PUT answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** `curl -T FILE` to a presigned URL, a video's bytes as a script would send them; `writeOut` is curl's -w. */
export function curlPut(url: string, file: string, o: RunOptions & { writeOut?: string } = {}): Promise<RunResult> {
  const { writeOut, ...runOptions } = o;
  const args = ['-sS', '--fail-with-body', '-T', file, '-H', 'Content-Type: video/mp4', '-o', '/dev/null'];
  return run('curl', [...args, ...(writeOut ? ['-w', writeOut] : []), url], runOptions);
}
