// Where an incomplete PostgreSQL URL connects: its own parts, else PG* variables, else libpq's
// defaults; and the refusal message says which were defaulted.
import { describe, expect, it } from 'vitest';
import { connectionTarget, databaseError } from '../../src/cli/commands/database-url.js';

describe('connectionTarget', () => {
  const cases: Array<[string, NodeJS.ProcessEnv, string, string[]]> = [
    ['postgres://u:pw@db:6543/lib', { PGHOST: 'x', PGPORT: '1', PGUSER: 'y', PGDATABASE: 'z' }, 'u@db:6543/lib', []],
    ['postgres:///', { PGHOST: 'h', PGPORT: '7', PGUSER: 'me', PGDATABASE: 'd' }, 'me@h:7/d', []],
    ['postgres://', { USER: 'ann' }, 'ann@localhost:5432/ann', ['host', 'port', 'user', 'database']],
    ['postgresql://bob@/', { PGHOST: 'h' }, 'bob@h:5432/bob', ['port', 'database']],
    ['postgres://[::1]:5433/x', { USER: 'c' }, 'c@[::1]:5433/x', ['user']],
    ['postgres://a%40b@h/my%20db', {}, 'a@b@h:5432/my db', ['port']],
    // A socket folder in the query, as libpq and pg take it.
    ['postgres://u@/lib?host=/var/run/postgresql', {}, 'u@/var/run/postgresql:5432/lib', ['port']],
  ];
  it.each(cases)('%s with %o → %s (defaulted %o)', (url, env, where, defaulted) => {
    const t = connectionTarget(url, env);
    expect(`${t.user}@${t.host}:${t.port}/${t.database}`).toBe(where);
    expect(t.defaulted).toEqual(defaulted);
  });
});

describe('databaseError', () => {
  it('a refused connection names what was tried and the variables that were missing', () => {
    const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const e = databaseError('postgres:///', err, { USER: 'ann' });
    expect(e?.message).toBe(
      'Cannot use the database postgres:///: connect ECONNREFUSED 127.0.0.1:5432 (ECONNREFUSED).',
    );
    // It never connected: the hint says it tried.
    expect(e?.hint).toContain('It tried to connect as "ann" to localhost:5432, database "ann".');
    expect(e?.hint).toContain(
      'Neither the URL nor PGHOST, PGPORT, PGUSER, PGDATABASE gave the host, port, user, database',
    );
  });

  it('a connection that did not come in time is said in words; a refusal by the server says it connected', () => {
    const late = databaseError('postgres://u@db:5432/d', new Error('timeout expired'), {});
    expect(late?.message).toBe(
      'Cannot use the database postgres://u@db:5432/d: no connection within the time limit (timeout expired).',
    );
    expect(late?.hint).toContain('It tried to connect as "u" to db:5432, database "d".');
    const auth = Object.assign(new Error('password authentication failed for user "u"'), { code: '28P01' });
    expect(databaseError('postgres://u@db:5432/d', auth, {})?.hint).toContain('It connected as "u" to db:5432');
  });

  it('a server asking for a password that was not given is said in words; other errors are not ours', () => {
    const sasl = new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string');
    expect(databaseError('postgres://u@h/d', sasl, {})?.message).toContain('neither the URL nor PGPASSWORD gives one');
    expect(databaseError('postgres://u:secret@h/d', new Error('boom'), {})).toBeUndefined();
  });
});
