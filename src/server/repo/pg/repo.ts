// The Repo on PostgreSQL, for N `serve` instances sharing one database. What must hold across
// instances is taken from row locks inside one transaction: the upload row (complete is
// idempotent per key), the carousel's item row (never more than the maximum of images), the
// brand row (quota checked and reserved together); the unique keys on items.file_key and
// carousel_files.file_key back them up. The deletion outbox is claimed with FOR UPDATE SKIP
// LOCKED and a lease on the database's clock, so each object is deleted by one instance.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import pg from 'pg';
import {
  type CompleteInput,
  type CompleteResult,
  type FileRow,
  type ItemChanges,
  type ItemRow,
  type ListFilter,
  type ObjectKeysOf,
  type Repo,
  ownKey,
} from '../interface.js';
import { type RawItem, changedColumns, foldTitle, likeLiteral, toItem } from '../items.js';
import { type Caller, KEY_PATTERN, type KeyRow, hashKey, newKeyRow, newKeySecret } from '../keys.js';
import { NEW_UPLOAD_COLUMNS, type Upload, newUploadValues } from '../uploads.js';
import { migratePostgres } from './migrations.js';
import { type Holdings, holdingsParams, holdingsSql, judgeReservation } from '../reservations.js';
import { poolTimeouts } from './timeouts.js';
import { databaseDown } from '../../unavailable.js';
import type { Timeouts } from '../../limits.js';

/** int8 (COUNT, BIGINT columns) as a JS number: sizes stay far below 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

const ITEM_COLUMNS = `
  i.id, i.brand_id AS "brandId", i.type, i.title, i.description, i.hashtags, i.status,
  i.platform_settings AS "platformSettings", i.file_key AS "fileKey", i.file_name AS "fileName",
  i.content_type AS "contentType", i.duration_seconds AS "durationSeconds",
  i.thumbnail_key AS "thumbnailKey", i.created_at AS "createdAt", i.updated_at AS "updatedAt",
  CASE WHEN i.type = 'carousel'
       THEN (SELECT COUNT(*) FROM carousel_files f WHERE f.item_id = i.id) ELSE 1 END AS "fileCount",
  CASE WHEN i.type = 'carousel'
       THEN (SELECT COALESCE(SUM(f.file_size), 0)::bigint FROM carousel_files f WHERE f.item_id = i.id)
       ELSE i.file_size END AS "fileSize"`;

const FILE_COLUMNS = `id, item_id AS "itemId", file_key AS "fileKey", file_name AS "fileName",
  content_type AS "contentType", file_size AS "fileSize", sort_order AS "sortOrder", created_at AS "createdAt"`;

const UPLOAD_COLUMNS = `key, file_id AS "fileId", brand_id AS "brandId", user_id AS "userId", file_name AS "fileName",
  content_type AS "contentType", file_size AS "fileSize", type, thumbnail, expires_at AS "expiresAt",
  created_at AS "createdAt", stored_at AS "storedAt", completed_at AS "completedAt", item_id AS "itemId",
  file_record_id AS "fileRecordId", key_id AS "keyId"`;

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

export interface PostgresRepoOptions {
  connectionString?: string;
  /** Connections per instance. */
  max?: number;
  /** Time limits on connecting and on each statement (default: DEFAULT_TIMEOUTS). */
  timeouts?: Pick<Timeouts, 'databaseMs'>;
}

/** Connects (PG* environment variables fill what the URL leaves out), migrates, and returns the Repo. */
export async function createPostgresRepo(o: PostgresRepoOptions): Promise<Repo> {
  const pool = new pg.Pool({
    ...(o.connectionString ? { connectionString: o.connectionString } : {}),
    max: o.max ?? 10,
    types,
    application_name: 'contentlib',
    // No call waits on a stopped, frozen or unreachable database for longer than the bound.
    ...poolTimeouts(o.timeouts),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  const client = await pool.connect();
  try {
    await migratePostgres(client);
  } catch (err) {
    client.release();
    await pool.end();
    throw err;
  }
  client.release();

  const query: Query = (text, values) => pool.query(text, values);

  /** Runs `fn` in one transaction on one connection; rolled back when it throws. */
  async function tx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    const c = await pool.connect();
    let broken: Error | undefined;
    // A connection lost between two statements makes the client emit 'error', which would end
    // the process unheard; the next statement fails instead, and the connection is dropped.
    const lost = () => undefined;
    c.on('error', lost);
    try {
      await c.query('BEGIN');
      const result = await fn((text, values) => c.query(text, values));
      await c.query('COMMIT');
      return result;
    } catch (err) {
      // A connection that broke or timed out is thrown away (the server rolls its transaction
      // back): a ROLLBACK would queue behind the statement still running on it.
      if (databaseDown(err)) broken = err instanceof Error ? err : new Error(String(err));
      else await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.off('error', lost);
      c.release(broken);
    }
  }

  async function getItemWith(q: Query, brandId: string, id: string, lock = false): Promise<ItemRow | null> {
    if (lock) await q('SELECT id FROM items WHERE id = $1 AND brand_id = $2 FOR UPDATE', [id, brandId]);
    const { rows } = await q<RawItem>(`SELECT ${ITEM_COLUMNS} FROM items i WHERE i.id = $1 AND i.brand_id = $2`, [
      id,
      brandId,
    ]);
    return toItem(rows[0]);
  }

  async function enqueue(q: Query, keys: readonly string[], at: string): Promise<void> {
    if (keys.length === 0) return;
    await q(
      `INSERT INTO pending_deletions (object_key, created_at) SELECT k, $2 FROM unnest($1::text[]) AS k
       ON CONFLICT (object_key) DO NOTHING`,
      [keys, at],
    );
  }

  async function addFile(q: Query, f: Omit<FileRow, 'sortOrder'>): Promise<FileRow> {
    const { rows } = await q<{ next: number }>(
      'SELECT COALESCE(MAX(sort_order) + 1, 0) AS next FROM carousel_files WHERE item_id = $1',
      [f.itemId],
    );
    const next = rows[0]?.next ?? 0;
    await q(
      `INSERT INTO carousel_files (id, item_id, file_key, file_name, content_type, file_size, sort_order, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [f.id, f.itemId, f.fileKey, f.fileName, f.contentType, f.fileSize, next, f.createdAt],
    );
    return { ...f, sortOrder: next };
  }

  async function complete(c: CompleteInput): Promise<CompleteResult> {
    return tx(async (q) => {
      // The upload row's lock makes completes of one key, on any instance, run one after another.
      const { rows } = await q<{ completedAt: string | null; itemId: string | null; fileRecordId: string | null }>(
        `SELECT completed_at AS "completedAt", item_id AS "itemId", file_record_id AS "fileRecordId"
           FROM uploads WHERE key = $1 FOR UPDATE`,
        [c.key],
      );
      const up = rows[0];
      if (!up) return { kind: 'not_found' };
      if (up.completedAt) return { kind: 'done', itemId: up.itemId!, fileId: up.fileRecordId };
      const file = { fileKey: c.key, fileName: c.fileName, contentType: c.contentType, fileSize: c.fileSize };
      if (c.contentItemId) {
        const itemId = c.contentItemId;
        // The carousel's row lock: concurrent additions count one after another.
        const item = await getItemWith(q, c.brandId, itemId, true);
        if (!item) return { kind: 'not_found' };
        if (item.fileCount >= c.maxCarouselFiles) return { kind: 'carousel_full' };
        const added = await addFile(q, { id: c.newFileId, itemId, ...file, createdAt: c.at });
        await q('UPDATE items SET updated_at = $1 WHERE id = $2', [c.at, itemId]);
        await markCompleted(q, c.key, c.at, itemId, added.id);
        return { kind: 'done', itemId, fileId: added.id };
      }
      await q(
        `INSERT INTO items (id, brand_id, type, title, title_fold, status, file_key, file_name, content_type,
                            file_size, duration_seconds, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'draft', $6, $7, $8, $9, $10, $11, $11)`,
        [
          c.newItemId,
          c.brandId,
          c.type,
          c.title,
          foldTitle(c.title),
          c.key,
          c.fileName,
          c.contentType,
          c.fileSize,
          c.durationSeconds,
          c.at,
        ],
      );
      const fileId =
        c.type === 'carousel'
          ? (await addFile(q, { id: c.newFileId, itemId: c.newItemId, ...file, createdAt: c.at })).id
          : null;
      await markCompleted(q, c.key, c.at, c.newItemId, fileId);
      return { kind: 'done', itemId: c.newItemId, fileId };
    });
  }

  async function markCompleted(q: Query, key: string, at: string, itemId: string, fileId: string | null) {
    await q('UPDATE uploads SET completed_at = $1, item_id = $2, file_record_id = $3 WHERE key = $4', [
      at,
      itemId,
      fileId,
      key,
    ]);
  }

  async function listItems(brandId: string, f: ListFilter): Promise<{ items: ItemRow[]; hasMore: boolean }> {
    const where = ['i.brand_id = $1'];
    const args: unknown[] = [brandId];
    const arg = (v: unknown) => {
      args.push(v);
      return `$${args.length}`;
    };
    if (f.status) where.push(`i.status = ${arg(f.status)}`);
    if (f.type) where.push(`i.type = ${arg(f.type)}`);
    if (f.search) where.push(`i.title_fold LIKE ${arg(`%${likeLiteral(foldTitle(f.search))}%`)} ESCAPE '\\'`);
    const { rows } = await query<RawItem>(
      `SELECT ${ITEM_COLUMNS} FROM items i WHERE ${where.join(' AND ')}
        ORDER BY i.created_at DESC, i.id DESC LIMIT ${arg(f.limit + 1)} OFFSET ${arg(f.offset)}`,
      args,
    );
    return { items: rows.slice(0, f.limit).map((r) => toItem(r)!), hasMore: rows.length > f.limit };
  }

  /** Runs `fn` in one transaction on the caller's item, locked; null when there is no such item. */
  function withLockedItem<T>(
    brandId: string,
    id: string,
    fn: (q: Query, item: ItemRow) => Promise<T>,
  ): Promise<T | null> {
    return tx(async (q) => {
      const item = await getItemWith(q, brandId, id, true);
      return item ? fn(q, item) : null;
    });
  }

  async function updateItem(
    brandId: string,
    id: string,
    c: ItemChanges,
    at: string,
    objectKeysOf: ObjectKeysOf = ownKey,
  ): Promise<string[] | null> {
    return withLockedItem(brandId, id, async (q, item) => {
      const sets = ['updated_at = $1'];
      const args: unknown[] = [at];
      for (const [column, value] of changedColumns(c)) {
        args.push(value);
        sets.push(`${column} = $${args.length}`);
      }
      args.push(id);
      await q(`UPDATE items SET ${sets.join(', ')} WHERE id = $${args.length}`, args);
      if (c.thumbnailKey === undefined) return [];
      // Attached is completed: the thumbnail's URL is closed.
      await q('UPDATE uploads SET item_id = $1, completed_at = $2 WHERE key = $3', [id, at, c.thumbnailKey]);
      const old = item.thumbnailKey !== c.thumbnailKey ? item.thumbnailKey : null;
      if (!old) return [];
      const { rows } = await q<{ key: string; fileId: string }>(
        'DELETE FROM uploads WHERE key = $1 RETURNING key, file_id AS "fileId"',
        [old],
      );
      const keys = rows[0] ? objectKeysOf(rows[0]) : [old];
      await enqueue(q, keys, at);
      return keys;
    });
  }

  async function deleteItem(
    brandId: string,
    id: string,
    at: string,
    objectKeysOf: ObjectKeysOf = ownKey,
  ): Promise<string[] | null> {
    return withLockedItem(brandId, id, async (q, item) => {
      const { rows: files } = await q<{ key: string }>(
        'SELECT file_key AS key FROM carousel_files WHERE item_id = $1',
        [id],
      );
      const { rows: ups } = await q<{ key: string; fileId: string }>(
        'SELECT key, file_id AS "fileId" FROM uploads WHERE item_id = $1',
        [id],
      );
      const objects = new Set([item.fileKey, ...files.map((r) => r.key), ...ups.flatMap((u) => objectKeysOf(u))]);
      if (item.thumbnailKey) objects.add(item.thumbnailKey);
      await q('DELETE FROM items WHERE id = $1', [id]);
      await q('DELETE FROM uploads WHERE item_id = $1', [id]);
      await enqueue(q, [...objects], at);
      return [...objects];
    });
  }

  async function authenticate(key: string): Promise<Caller | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const { rows } = await query<{ keyId: string; hash: Buffer; userId: string; brandId: string }>(
      `SELECT k.id AS "keyId", k.key_hash AS hash, u.id AS "userId", u.brand_id AS "brandId"
         FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [digest],
    );
    const row = rows[0];
    if (!row || !timingSafeEqual(row.hash, digest)) return null;
    return { keyId: row.keyId, userId: row.userId, brandId: row.brandId };
  }

  async function createKey(brandName: string, now: Date) {
    const key = newKeySecret();
    const at = now.toISOString();
    return tx(async (q) => {
      // Two instances creating the first key of a brand together make one brand.
      await q('INSERT INTO brands (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
        randomUUID(),
        brandName,
        at,
      ]);
      const { rows } = await q<{ id: string }>('SELECT id FROM brands WHERE name = $1', [brandName]);
      const brandId = rows[0]!.id;
      const userId = randomUUID();
      await q('INSERT INTO users (id, brand_id, created_at) VALUES ($1, $2, $3)', [userId, brandId, at]);
      const row = newKeyRow(userId, key, at);
      await q('INSERT INTO api_keys (id, user_id, key_hash, prefix, created_at) VALUES ($1, $2, $3, $4, $5)', row);
      const id = row[0];
      return { id, key, brand: brandName, userId };
    });
  }

  return {
    kind: 'postgres',
    authenticate,
    createKey,
    async listKeys() {
      const { rows } = await query<KeyRow>(
        `SELECT k.id, b.name AS brand, u.id AS "userId", k.created_at AS "createdAt", k.revoked_at AS "revokedAt", k.prefix
           FROM api_keys k JOIN users u ON u.id = k.user_id JOIN brands b ON b.id = u.brand_id
          ORDER BY k.created_at, k.id`,
      );
      return rows;
    },
    async revokeKey(id, now) {
      const res = await query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [
        now.toISOString(),
        id,
      ]);
      return res.rowCount === 1;
    },
    async reserveUpload(u, limits, nowMs) {
      return tx(async (q) => {
        // The brand's row lock: two presigns of one brand on two instances cannot both fit the last bytes.
        await q('SELECT id FROM brands WHERE id = $1 FOR UPDATE', [u.brandId]);
        const p = holdingsParams(u.brandId, u.keyId, nowMs, limits);
        const { rows } = await q<Holdings>(holdingsSql('postgres'), [p.brand, p.key, p.now, p.since]);
        const refusal = judgeReservation(u, rows[0]!, limits);
        if (refusal) return { ok: false as const, refusal };
        const values = newUploadValues(u);
        await q(
          `INSERT INTO uploads (${NEW_UPLOAD_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
          values,
        );
        return { ok: true as const };
      });
    },
    async getUpload(key) {
      const { rows } = await query<Upload>(`SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE key = $1`, [key]);
      return rows[0] ?? null;
    },
    async getUploadByFileId(fileId) {
      const { rows } = await query<Upload>(`SELECT ${UPLOAD_COLUMNS} FROM uploads WHERE file_id = $1`, [fileId]);
      return rows[0] ?? null;
    },
    async openForPut(fileId) {
      const { rows } = await query<Upload>(
        `SELECT ${UPLOAD_COLUMNS} FROM uploads
          WHERE file_id = $1 AND completed_at IS NULL AND item_id IS NULL
            AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = uploads.key_id AND k.revoked_at IS NOT NULL)`,
        [fileId],
      );
      return rows[0] ?? null;
    },
    async markStored(key, at) {
      await query('UPDATE uploads SET stored_at = $1 WHERE key = $2', [at, key]);
    },
    async markNotStored(key) {
      await query('UPDATE uploads SET stored_at = NULL WHERE key = $1', [key]);
    },
    complete,
    getItem: (brandId, id) => getItemWith(query, brandId, id),
    listItems,
    async files(itemId) {
      const { rows } = await query<FileRow>(
        `SELECT ${FILE_COLUMNS} FROM carousel_files WHERE item_id = $1 ORDER BY sort_order`,
        [itemId],
      );
      return rows;
    },
    async file(id) {
      const { rows } = await query<FileRow>(`SELECT ${FILE_COLUMNS} FROM carousel_files WHERE id = $1`, [id]);
      return rows[0] ?? null;
    },
    updateItem,
    deleteItem,
    async abandonUploads(beforeMs, at, objectKeysOf = ownKey) {
      return tx(async (q) => {
        const { rows } = await q<{ key: string; fileId: string }>(
          `DELETE FROM uploads WHERE key IN (
             SELECT key FROM uploads WHERE completed_at IS NULL AND item_id IS NULL AND expires_at < $1
             FOR UPDATE SKIP LOCKED)
           RETURNING key, file_id AS "fileId"`,
          [beforeMs],
        );
        await enqueue(
          q,
          rows.flatMap((r) => objectKeysOf(r)),
          at,
        );
        return rows.length;
      });
    },
    async claimDeletions(limit, leaseSeconds) {
      const { rows } = await query<{ key: string }>(
        `UPDATE pending_deletions SET leased_until = now() + make_interval(secs => $2)
          WHERE object_key IN (
            SELECT object_key FROM pending_deletions
             WHERE leased_until IS NULL OR leased_until < now()
             ORDER BY created_at LIMIT $1
             FOR UPDATE SKIP LOCKED)
          RETURNING object_key AS key`,
        [limit, leaseSeconds],
      );
      return rows.map((r) => r.key);
    },
    async deletionDone(key) {
      await query('DELETE FROM pending_deletions WHERE object_key = $1', [key]);
    },
    async deletionFailed(key, error) {
      await query(
        'UPDATE pending_deletions SET attempts = attempts + 1, last_error = $1, leased_until = NULL WHERE object_key = $2',
        [error, key],
      );
    },
    async pendingDeletions() {
      const { rows } = await query<{ key: string }>(
        'SELECT object_key AS key FROM pending_deletions ORDER BY created_at',
      );
      return rows.map((r) => r.key);
    },
    async sharedSecret(name) {
      await query('INSERT INTO shared_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
        name,
        randomBytes(32),
      ]);
      const { rows } = await query<{ value: Buffer }>('SELECT value FROM shared_secrets WHERE name = $1', [name]);
      return rows[0]!.value;
    },
    async ping() {
      await query('SELECT 1');
    },
    async check() {
      await query('SELECT 1 FROM contentlib_migrations LIMIT 1');
    },
    async itemsByType() {
      const { rows } = await query<{ type: string; n: number }>('SELECT type, COUNT(*) AS n FROM items GROUP BY type');
      return Object.fromEntries(rows.map((r) => [r.type, r.n]));
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
