// The Repo on PostgreSQL, for N `serve` instances sharing one database. What must hold across
// instances is taken from row locks inside one transaction: the upload row (complete is
// idempotent per key), the carousel's item row (never more than the maximum of images), the
// brand row (quota checked and reserved together); the unique keys on items.file_key and
// carousel_files.file_key back them up. The deletion outbox is claimed with FOR UPDATE SKIP
// LOCKED and a lease on the database's clock, so each object is deleted by one instance.
import { randomBytes, randomUUID } from 'node:crypto';
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
import {
  type Actor,
  type AuditEvent,
  type RawAuditEntry,
  auditPageQuery,
  authorsByItem,
  itemAuthorQueries,
  patchDetails,
  pruneAuditSql,
  toAuditEntry,
  writeAudit,
  LOCAL_ADMIN,
} from '../audit.js';
import { type RawItem, changedColumns, foldTitle, likeLiteral, toItem } from '../items.js';
import {
  type BrandRef,
  KEY_BY_HASH,
  KEY_PATTERN,
  KEY_ROW_SELECT,
  type KeyOptions,
  type KeyRecord,
  type KeyRow,
  NEW_KEY_COLUMNS,
  type NewKey,
  type RawKeyRecord,
  type RawKeyRow,
  type RevokeOptions,
  type RevokeOutcome,
  hashKey,
  isLastAdmin,
  keyCreatedDetails,
  keyRevokedDetails,
  newKeySecret,
  newKeyValues,
  toKeyRecord,
  toKeyRow,
} from '../keys.js';
import { NEW_UPLOAD_COLUMNS, type Upload, newUploadValues } from '../uploads.js';
import { migratePostgres } from './migrations.js';

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
}

/** Connects (PG* environment variables fill what the URL leaves out), migrates, and returns the Repo. */
export async function createPostgresRepo(o: PostgresRepoOptions): Promise<Repo> {
  const pool = new pg.Pool({
    ...(o.connectionString ? { connectionString: o.connectionString } : {}),
    max: o.max ?? 10,
    types,
    application_name: 'contentlib',
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
  const param = (n: number) => `$${n}`;
  /** Records an audit entry: call with the transaction's `q` of the change it records. */
  const audit = (q: Query, e: AuditEvent) => writeAudit(q, param, e);

  /** Runs `fn` in one transaction on one connection; rolled back when it throws. */
  async function tx<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const result = await fn((text, values) => c.query(text, values));
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
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
        await audit(q, {
          brandId: c.brandId,
          action: 'item.image_added',
          itemId,
          at: c.at,
          actor: c.actor,
          details: { fileId: added.id, fileName: c.fileName, sortOrder: added.sortOrder },
        });
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
      await audit(q, {
        brandId: c.brandId,
        action: 'item.created',
        itemId: c.newItemId,
        at: c.at,
        actor: c.actor,
        details: { type: c.type, title: c.title, fileName: c.fileName },
      });
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
    actor: Actor,
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
      const details = patchDetails(item, c);
      if (details) await audit(q, { brandId, action: 'item.updated', itemId: id, at, actor, details });
      if (c.thumbnailKey === undefined) return [];
      // Attached is completed: the thumbnail's URL is closed.
      await q('UPDATE uploads SET item_id = $1, completed_at = $2 WHERE key = $3', [id, at, c.thumbnailKey]);
      const old = item.thumbnailKey !== c.thumbnailKey ? item.thumbnailKey : null;
      const thumbnail = { thumbnailKey: c.thumbnailKey, replaced: old };
      await audit(q, { brandId, action: 'item.thumbnail_set', itemId: id, at, actor, details: thumbnail });
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
    actor: Actor,
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
      const details = { type: item.type, title: item.title };
      await audit(q, { brandId, action: 'item.deleted', itemId: id, at, actor, details });
      return [...objects];
    });
  }

  async function authenticate(key: string): Promise<KeyRecord | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const digest = hashKey(key);
    const { rows } = await query<RawKeyRecord>(`${KEY_BY_HASH} WHERE k.key_hash = $1`, [digest]);
    return toKeyRecord(rows[0], digest);
  }

  async function keyRow(q: Query, id: string): Promise<KeyRow | null> {
    const { rows } = await q<RawKeyRow>(`${KEY_ROW_SELECT} WHERE k.id = $1`, [id]);
    return rows[0] ? toKeyRow(rows[0]) : null;
  }

  async function listKeys(brandId?: string, q: Query = query): Promise<KeyRow[]> {
    const where = brandId === undefined ? '' : 'WHERE b.id = $1';
    const { rows } = await q<RawKeyRow>(
      `${KEY_ROW_SELECT} ${where} ORDER BY k.created_at, k.id`,
      brandId === undefined ? [] : [brandId],
    );
    return rows.map(toKeyRow);
  }

  /** The brand's id: by name (made when new; two instances making it at once make one), or checked to exist. */
  async function brandOf(q: Query, brand: BrandRef, at: string): Promise<string | null> {
    if (typeof brand !== 'string') {
      const { rows } = await q<{ id: string }>('SELECT id FROM brands WHERE id = $1', [brand.id]);
      return rows[0]?.id ?? null;
    }
    await q('INSERT INTO brands (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
      randomUUID(),
      brand,
      at,
    ]);
    const { rows } = await q<{ id: string }>('SELECT id FROM brands WHERE name = $1', [brand]);
    return rows[0]!.id;
  }

  async function createKey(brand: BrandRef, now: Date, o: KeyOptions = {}): Promise<NewKey> {
    const key = newKeySecret();
    const at = now.toISOString();
    return tx(async (q) => {
      const brandId = await brandOf(q, brand, at);
      if (!brandId) throw new Error('createKey: unknown brand id');
      const userId = randomUUID();
      await q('INSERT INTO users (id, brand_id, created_at) VALUES ($1, $2, $3)', [userId, brandId, at]);
      const id = randomUUID();
      const values = newKeyValues({ id, userId, key, at, o });
      await q(
        `INSERT INTO api_keys (${NEW_KEY_COLUMNS}) VALUES (${values.map((_, i) => param(i + 1)).join(', ')})`,
        values,
      );
      const made = (await keyRow(q, id))!;
      await audit(q, {
        brandId,
        action: 'key.created',
        itemId: null,
        at,
        actor: o.by ?? LOCAL_ADMIN,
        details: keyCreatedDetails(made),
      });
      return { ...made, key };
    });
  }

  async function revokeKey(id: string, now: Date, o: RevokeOptions = {}): Promise<RevokeOutcome> {
    const at = now.toISOString();
    return tx(async (q) => {
      const target = await keyRow(q, id);
      if (!target || target.revokedAt !== null) return 'not_found';
      if (o.brandId !== undefined && target.brandId !== o.brandId) return 'not_found';
      // The brand's row lock: two admins revoking each other's keys at once cannot both succeed
      // and leave the brand with no admin key.
      await q('SELECT id FROM brands WHERE id = $1 FOR UPDATE', [target.brandId]);
      const fresh = await keyRow(q, id);
      if (!fresh || fresh.revokedAt !== null) return 'not_found';
      if (o.keepLastAdmin && isLastAdmin(fresh, await listKeys(fresh.brandId, q), at)) return 'last_admin';
      await q('UPDATE api_keys SET revoked_at = $1 WHERE id = $2', [at, id]);
      await audit(q, {
        brandId: fresh.brandId,
        action: 'key.revoked',
        itemId: null,
        at,
        actor: o.by ?? LOCAL_ADMIN,
        details: keyRevokedDetails(fresh),
      });
      return 'revoked';
    });
  }

  return {
    kind: 'postgres',
    authenticate,
    async touchKey(id, at, notAfter) {
      await query(
        'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)',
        [at, id, notAfter],
      );
    },
    createKey,
    listKeys: (brandId) => listKeys(brandId),
    revokeKey,
    async listAudit(brandId, f) {
      const { sql, values } = auditPageQuery(brandId, f, param);
      const { rows } = await query<RawAuditEntry>(sql, values);
      return { entries: rows.slice(0, f.limit).map(toAuditEntry), hasMore: rows.length > f.limit };
    },
    async itemAuthors(brandId, itemIds) {
      if (itemIds.length === 0) return new Map();
      const q = itemAuthorQueries(param, itemIds.length);
      const [first, last] = await Promise.all([
        query<RawAuditEntry>(q.first, [brandId, ...itemIds]),
        query<RawAuditEntry>(q.last, [brandId, ...itemIds]),
      ]);
      return authorsByItem(itemIds, first.rows, last.rows);
    },
    async pruneAudit(before) {
      return (await query(pruneAuditSql(param), [before])).rowCount ?? 0;
    },
    async reserveUpload(u, quotaBytes, nowMs) {
      return tx(async (q) => {
        // The brand's row lock: two presigns of one brand on two instances cannot both fit the last bytes.
        await q('SELECT id FROM brands WHERE id = $1 FOR UPDATE', [u.brandId]);
        if (!u.thumbnail) {
          const { rows } = await q<{ used: number }>(
            `SELECT COALESCE(SUM(file_size), 0)::bigint AS used FROM uploads
              WHERE brand_id = $1 AND NOT thumbnail AND (stored_at IS NOT NULL OR expires_at > $2)`,
            [u.brandId, nowMs],
          );
          const used = rows[0]?.used ?? 0;
          if (used + u.fileSize > quotaBytes) return { ok: false as const, used };
        }
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
    async openForPut(fileId, at) {
      const { rows } = await query<Upload>(
        `SELECT ${UPLOAD_COLUMNS} FROM uploads
          WHERE file_id = $1 AND completed_at IS NULL AND item_id IS NULL
            AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = uploads.key_id
                              AND (k.revoked_at IS NOT NULL OR k.expires_at <= $2))`,
        [fileId, at],
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
