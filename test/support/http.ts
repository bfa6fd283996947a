// Raw HTTP for the reliability tests (load, abuse, crash): real fixture media, calls that never throw on a
// status (we want to see every answer), the documented error body, and database checks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/sqlite/database.js';
import { Agent, request } from 'undici';
import { API_ERRORS, STORAGE_ERRORS } from '../../src/api/error-codes.js';
import { databasePath } from '../../src/server/repo/sqlite/db.js';
import { ROOT } from './paths.js';

export interface Media {
  fileName: string;
  contentType: string;
  bytes: Buffer;
  type: 'shortform' | 'carousel';
}

/** Real small media from fixtures/: a 5 s H.264 clip and a JPEG photo. */
export function fixtureMedia(): { clip: Media; photo: Media } {
  return {
    clip: {
      fileName: 'clip-5s.mp4',
      contentType: 'video/mp4',
      bytes: readFileSync(join(ROOT, 'fixtures/video/clip-5s.mp4')),
      type: 'shortform',
    },
    photo: {
      fileName: 'photo.jpg',
      contentType: 'image/jpeg',
      bytes: readFileSync(join(ROOT, 'fixtures/image/photo.jpg')),
      type: 'carousel',
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** A pool big enough that 60 callers at once never queue behind each other. */
export function wideAgent(): Agent {
  return new Agent({ connections: 128, pipelining: 1 });
}

export async function http(
  method: string,
  url: string,
  o: {
    key?: string;
    json?: unknown;
    body?: Buffer | string;
    headers?: Record<string, string>;
    dispatcher?: Agent;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
  let body = o.body;
  if (o.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(o.json);
  }
  const res = await request(url, { method: method as 'GET', headers, body, dispatcher: o.dispatcher });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** The error body of docs/api.md (Errors), or a sentence saying how the answer differs from it. */
export function errorBodyProblem(a: Answer, table: 'api' | 'storage'): string | null {
  const codes: Record<string, number> = table === 'api' ? API_ERRORS : STORAGE_ERRORS;
  const e = (a.json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (!e || typeof e !== 'object') return `${a.status} without an { error } JSON body: ${a.text.slice(0, 200)}`;
  if (typeof e.code !== 'string' || !(e.code in codes)) return `unknown error code ${String(e.code)}`;
  if (codes[e.code] !== a.status) return `code ${e.code} answered with ${a.status}, documented ${codes[e.code]}`;
  if (typeof e.message !== 'string' || e.message.length === 0) return 'error without a message';
  if (!Array.isArray(e.details)) return 'error without a details array';
  return null;
}

/** `PRAGMA integrity_check` of the data dir's database, read-only beside a running server. */
export function integrityCheck(dataDir: string): string {
  const db = new Database(databasePath(dataDir), { readOnly: true });
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? 'no answer';
  } finally {
    db.close();
  }
}

/** Rows of the data dir's database, read-only. */
export function query<T>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(databasePath(dataDir), { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export interface Listed {
  id: string;
  title: string;
  fileUrl: string;
}

/** Every item of the caller's brand, page by page (100 a page). */
export async function listAll(baseUrl: string, key: string, dispatcher?: Agent): Promise<Listed[]> {
  const all: Listed[] = [];
  for (let offset = 0; ; offset += 100) {
    const a = await http('GET', `${baseUrl}/api/v1/content?limit=100&offset=${offset}`, { key, dispatcher });
    if (a.status !== 200) throw new Error(`list answered ${a.status}: ${a.text}`);
    const page = a.json as { items: Listed[]; hasMore: boolean };
    all.push(...page.items);
    if (!page.hasMore) return all;
  }
}

/** presign → PUT → complete of real media; returns every answer so callers can assert on each. */
export async function uploadFlow(baseUrl: string, key: string, m: Media, fileName: string, dispatcher?: Agent) {
  const presign = await http('POST', `${baseUrl}/api/v1/upload/presign`, {
    key,
    dispatcher,
    json: { fileName, contentType: m.contentType, fileSize: m.bytes.length, type: m.type },
  });
  if (presign.status !== 200) return { presign };
  const p = presign.json as { presignedUrl: string; key: string };
  const put = await http('PUT', p.presignedUrl, {
    body: m.bytes,
    headers: { 'content-type': m.contentType },
    dispatcher,
  });
  if (put.status !== 200) return { presign, put, storageKey: p.key };
  const complete = await http('POST', `${baseUrl}/api/v1/upload/complete`, {
    key,
    dispatcher,
    json: { key: p.key, fileName, contentType: m.contentType, fileSize: m.bytes.length, type: m.type },
  });
  return { presign, put, complete, storageKey: p.key };
}
