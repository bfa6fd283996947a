// src/sqlite/: the transactions, pragmas and error codes the repositories and the journal rely on,
// on node:sqlite.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorCode, sqliteCodeName } from '../../src/sqlite/codes.js';
import { Database, plucked, typed } from '../../src/sqlite/database.js';

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contentlib-sqlite-'));
  db = new Database(join(dir, 'test.db'));
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER)');
});
afterEach(async () => {
  if (db.open) db.close();
  await rm(dir, { recursive: true, force: true });
});

const count = () => (db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
const insert = (id: string) => db.prepare('INSERT INTO t (id, n) VALUES (?, ?)').run(id, 1);

describe('transaction()', () => {
  it('commits what fn did and returns its value', () => {
    const tx = db.transaction((a: string, b: string) => (insert(a), insert(b), 'done'));
    expect(tx.immediate('a', 'b')).toBe('done');
    expect(count()).toBe(2);
  });

  it('rolls back everything when fn throws, and rethrows', () => {
    const tx = db.transaction(() => {
      insert('a');
      throw new Error('boom');
    });
    expect(() => tx()).toThrow('boom');
    expect(count()).toBe(0);
    // The connection is usable again: no transaction was left open.
    db.transaction(() => insert('b')).immediate();
    expect(count()).toBe(1);
  });

  it('a nested transaction is a savepoint: its failure undoes only itself', () => {
    const inner = db.transaction(() => {
      insert('inner');
      throw new Error('inner fails');
    });
    db.transaction(() => {
      insert('outer');
      expect(() => inner()).toThrow('inner fails');
      insert('after');
    }).immediate();
    expect((db.prepare('SELECT id FROM t ORDER BY id').all() as { id: string }[]).map((r) => r.id)).toEqual([
      'after',
      'outer',
    ]);
  });

  it('a constraint error inside rolls back and names SQLite code', () => {
    insert('a');
    let caught: unknown;
    try {
      db.transaction(() => (insert('b'), insert('a')))();
    } catch (err) {
      caught = err;
    }
    expect(errorCode(caught)).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(count()).toBe(1);
  });
});

describe('pragma(), typed(), plucked()', () => {
  it('reads and sets pragmas, simple or as rows', () => {
    db.pragma('user_version = 7');
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.pragma('user_version')).toEqual([{ user_version: 7 }]);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('binds named parameters without their @ and returns the first column when plucked', () => {
    db.prepare('INSERT INTO t (id, n) VALUES (@id, @n)').run({ id: 'x', n: 3 });
    const byId = typed<[string], { id: string; n: number }>(db, 'SELECT id, n FROM t WHERE id = ?');
    expect(byId.get('x')).toEqual({ id: 'x', n: 3 });
    expect(byId.get('nope')).toBeUndefined();
    const ids = plucked<[], string>(db.prepare('SELECT id FROM t'));
    expect(ids.all()).toEqual(['x']);
    expect(ids.get()).toBe('x');
  });
});

describe('prepare()', () => {
  it('keeps a statement per SQL text: the same one again, with its results each time', () => {
    const sql = 'SELECT id FROM t WHERE n = ? ORDER BY id';
    expect(db.prepare(sql)).toBe(db.prepare(sql));
    insert('a');
    expect(db.prepare(sql).all(1)).toEqual([{ id: 'a' }]);
    insert('b');
    expect(db.prepare(sql).all(1)).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(db.prepare(sql).all(2)).toEqual([]);
  });

  it('keeps the 256 used last: one used since stays, the oldest is prepared again', () => {
    const first = db.prepare('SELECT 0 AS k');
    const second = db.prepare('SELECT 1 AS k');
    for (let k = 2; k < 256; k++) db.prepare(`SELECT ${k} AS k`);
    db.prepare('SELECT 0 AS k');
    db.prepare('SELECT 256 AS k');
    expect(db.prepare('SELECT 0 AS k')).toBe(first);
    expect(db.prepare('SELECT 1 AS k')).not.toBe(second);
    expect(db.prepare('SELECT 1 AS k').get()).toEqual({ k: 1 });
  });

  it('a schema changed by exec (a migration) is seen: exec drops the kept statements', () => {
    insert('a');
    const before = db.prepare('SELECT * FROM t');
    expect(before.all()).toEqual([{ id: 'a', n: 1 }]);
    db.exec("ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'x'");
    expect(db.prepare('SELECT * FROM t')).not.toBe(before);
    expect(db.prepare('SELECT * FROM t').all()).toEqual([{ id: 'a', n: 1, note: 'x' }]);
  });

  it('a transaction keeps them: BEGIN and COMMIT do not change the schema', () => {
    const kept = db.prepare('SELECT COUNT(*) AS n FROM t');
    db.transaction(() => insert('a')).immediate();
    expect(db.prepare('SELECT COUNT(*) AS n FROM t')).toBe(kept);
  });
});

describe('errorCode()', () => {
  it.each([
    [5, 'SQLITE_BUSY'],
    [13, 'SQLITE_FULL'],
    [14, 'SQLITE_CANTOPEN'],
    [26, 'SQLITE_NOTADB'],
    [778, 'SQLITE_IOERR_WRITE'],
    [2067, 'SQLITE_CONSTRAINT_UNIQUE'],
    [10 | (40 << 8), 'SQLITE_IOERR_10250'],
  ])('names result code %i %s', (errcode, name) => {
    expect(sqliteCodeName(errcode)).toBe(name);
  });

  it("names node:sqlite's errors by SQLite's code and leaves others' codes as they are", async () => {
    const garbage = join(dir, 'garbage.db');
    await writeFile(garbage, 'not a database '.repeat(100));
    let caught: unknown;
    try {
      new Database(garbage).pragma('journal_mode = WAL');
    } catch (err) {
      caught = err;
    }
    expect(errorCode(caught)).toBe('SQLITE_NOTADB');
    expect(errorCode(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe('ENOSPC');
    expect(errorCode('text')).toBeUndefined();
  });

  it('a folder where the database file should be is SQLITE_CANTOPEN', () => {
    let caught: unknown;
    try {
      new Database(dir);
    } catch (err) {
      caught = err;
    }
    expect(errorCode(caught)).toBe('SQLITE_CANTOPEN');
  });
});
