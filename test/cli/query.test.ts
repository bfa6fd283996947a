// The query syntax (src/cli/query.ts) as a table: what each query becomes, and what is refused.
import { describe, expect, it } from 'vitest';
import type { ListParams } from '../../src/api/client.js';
import { QuerySyntaxError, UsageError } from '../../src/cli/errors.js';
import { combineParams, narrows, paramsFromFlags, parseQuery } from '../../src/cli/query.js';

// Thursday 2026-11-26 12:00 UTC.
const now = () => new Date('2026-11-26T12:00:00.000Z');

describe('parseQuery', () => {
  const table: [string, ListParams][] = [
    ['', {}],
    ['   ', {}],
    ['status:draft', { status: 'draft' }],
    ['STATUS:Draft', { status: 'draft' }],
    ['type:carousel', { type: 'carousel' }],
    ['#summersale', { hashtag: ['summersale'] }],
    ['#a #b hashtag:c tag:#d', { hashtag: ['a', 'b', 'c', 'd'] }],
    ['#Sale #sale', { hashtag: ['Sale'] }],
    ['created:>7d', { createdAfter: '2026-11-19T12:00:00.001Z' }],
    ['created:>=7d', { createdAfter: '2026-11-19T12:00:00.000Z' }],
    ['created:7d', { createdAfter: '2026-11-19T12:00:00.000Z' }],
    ['created:<12h', { createdBefore: '2026-11-26T00:00:00.000Z' }],
    ['created:>2w', { createdAfter: '2026-11-12T12:00:00.001Z' }],
    ['created:>30m', { createdAfter: '2026-11-26T11:30:00.001Z' }],
    ['updated:<2026-01-01', { updatedBefore: '2026-01-01T00:00:00.000Z' }],
    ['updated:<=2026-01-01', { updatedBefore: '2026-01-02T00:00:00.000Z' }],
    ['created:>2026-01-01', { createdAfter: '2026-01-02T00:00:00.000Z' }],
    ['created:>=2026-01-01', { createdAfter: '2026-01-01T00:00:00.000Z' }],
    ['created:2026-11-01', { createdAfter: '2026-11-01T00:00:00.000Z', createdBefore: '2026-11-02T00:00:00.000Z' }],
    [
      'created:2026-11-01..2026-11-20',
      { createdAfter: '2026-11-01T00:00:00.000Z', createdBefore: '2026-11-21T00:00:00.000Z' },
    ],
    ['created:2026-11-01..', { createdAfter: '2026-11-01T00:00:00.000Z' }],
    ['created:*..2026-11-20', { createdBefore: '2026-11-21T00:00:00.000Z' }],
    ['created:>=2026-11-01T09:30:00Z', { createdAfter: '2026-11-01T09:30:00.000Z' }],
    ['created:>=2026-11-01T09:30', { createdAfter: '2026-11-01T09:30:00.000Z' }],
    ['created:>=2026-11-01T09:30:00+02:00', { createdAfter: '2026-11-01T07:30:00.000Z' }],
    ['by:ci-bot', { createdBy: 'ci-bot' }],
    ['author:ci-bot', { createdBy: 'ci-bot' }],
    ['updated-by:62922a20-4866-4238-af64-d3b7e6a5ef19', { updatedBy: '62922a20-4866-4238-af64-d3b7e6a5ef19' }],
    ['by:"release bot"', { createdBy: 'release bot' }],
    ['duration:>30', { minDuration: 30 }],
    ['duration:<=2m', { maxDuration: 120 }],
    ['duration:30..90', { minDuration: 30, maxDuration: 90 }],
    ['duration:7.5', { minDuration: 7.5, maxDuration: 7.5 }],
    ['duration:..1h', { maxDuration: 3600 }],
    ['sort:title-asc', { sort: 'title', order: 'asc' }],
    ['sort:created', { sort: 'createdAt' }],
    ['sort:updated-desc', { sort: 'updatedAt', order: 'desc' }],
    ['title:summer', { search: 'summer' }],
    ['title:"summer sale"', { search: 'summer sale' }],
    ['northwind sneaker', { q: 'northwind sneaker' }],
    ['"exact phrase"', { q: '"exact phrase"' }],
    ['northwind "exact phrase" sneaker', { q: 'northwind "exact phrase" sneaker' }],
    ['"10:30 launch"', { q: '"10:30 launch"' }],
    ['status:draft status:draft', { status: 'draft' }],
    [
      'status:draft type:carousel #summersale created:>7d updated:<2026-01-01 by:ci-bot duration:>30 sort:title-asc northwind sneaker "exact phrase"',
      {
        status: 'draft',
        type: 'carousel',
        hashtag: ['summersale'],
        createdAfter: '2026-11-19T12:00:00.001Z',
        updatedBefore: '2026-01-01T00:00:00.000Z',
        createdBy: 'ci-bot',
        minDuration: 30,
        sort: 'title',
        order: 'asc',
        q: 'northwind sneaker "exact phrase"',
      },
    ],
  ];
  it.each(table)('%j → %j', (query, params) => expect(parseQuery(query, now)).toEqual(params));

  const refused: [string, RegExp][] = [
    ['colour:red', /Unknown word "colour:"/],
    ['http://example.com', /Unknown word "http:"/],
    ['status:deleted', /"deleted" is not a status.*/],
    ['type:reel', /"reel" is not a type/],
    ['status:draft status:failed', /status: is given twice/],
    ['status:', /status: needs a value/],
    ['created:>yesterday', /"yesterday" in created: is not a date, a time or a duration/],
    ['created:>', /created: needs a date or a duration/],
    ['created:2026-13-45', /is not a date/],
    ['created:2026-11-20..2026-11-01', /ends before it starts/],
    ['created:..', /needs at least one end/],
    ['created:1..2..3', /more than one "\.\."/],
    ['duration:>long', /"long" in duration: is not a number of seconds/],
    ['duration:90..30', /ends before it starts/],
    ['sort:size', /"size" in sort: is not a sort/],
    ['sort:title-up', /is not a sort/],
    ['#', /"#" is not a hashtag/],
    ['-#winter', /excluding \(-word\) is not supported/],
    ['"open phrase', /quote \(""?\) is not closed/],
  ];
  it.each(refused)('%j is refused: %s', (query, message) => {
    let thrown: unknown;
    try {
      parseQuery(query, now);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(QuerySyntaxError);
    // A usage error: the CLI's one mapping gives it exit 2.
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as QuerySyntaxError).exitCode).toBe(2);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as QuerySyntaxError).hint).toBeTruthy();
  });
});

describe('ls search flags', () => {
  const table: [Parameters<typeof paramsFromFlags>[0], ListParams][] = [
    [{}, {}],
    [{ hashtag: ['#summersale', 'launch'] }, { hashtag: ['summersale', 'launch'] }],
    [{ since: '7d' }, { createdAfter: '2026-11-19T12:00:00.000Z' }],
    [{ since: '2026-11-01' }, { createdAfter: '2026-11-01T00:00:00.000Z' }],
    [{ until: '2026-11-20' }, { createdBefore: '2026-11-21T00:00:00.000Z' }],
    [{ updatedSince: '12h' }, { updatedAfter: '2026-11-26T00:00:00.000Z' }],
    [{ updatedUntil: '2026-01-01T00:00:00Z' }, { updatedBefore: '2026-01-01T00:00:00.001Z' }],
    [{ by: 'ci-bot' }, { createdBy: 'ci-bot' }],
    [{ text: ' northwind sneaker ' }, { q: 'northwind sneaker' }],
    [{ sort: 'title-asc' }, { sort: 'title', order: 'asc' }],
    [{ sort: 'updated' }, { sort: 'updatedAt' }],
    [
      { minDuration: '30', maxDuration: '1m' },
      { minDuration: 30, maxDuration: 60 },
    ],
  ];
  it.each(table)('%j → %j', (flags, params) => expect(paramsFromFlags(flags, now)).toEqual(params));

  it.each([
    [{ since: 'last week' }, /"last week" in --since is not a date/],
    [{ since: '2026-11-20', until: '2026-11-01' }, /--until is before --since/],
    [{ updatedSince: '1d', updatedUntil: '2d' }, /--updated-until is before --updated-since/],
    [{ sort: 'size' }, /is not a sort/],
    [{ minDuration: 'x' }, /not a number of seconds/],
    [{ minDuration: '60', maxDuration: '30' }, /--max-duration is below --min-duration/],
    [{ hashtag: ['two words'] }, /is not a hashtag/],
  ])('%j is refused', (flags, message) => {
    expect(() => paramsFromFlags(flags, now)).toThrow(QuerySyntaxError);
    expect(() => paramsFromFlags(flags, now)).toThrow(message);
  });
});

describe('combineParams', () => {
  it('adds hashtags and text, keeps the rest', () => {
    expect(
      combineParams(
        { status: 'draft', hashtag: ['a'], q: 'northwind' },
        { hashtag: ['A', 'b'], q: 'sneaker', createdBy: 'ci' },
      ),
    ).toEqual({ status: 'draft', hashtag: ['a', 'b'], q: 'northwind sneaker', createdBy: 'ci' });
  });
  it('the same value twice is fine; two different ones are refused', () => {
    expect(combineParams({ status: 'draft' }, { status: 'draft' })).toEqual({ status: 'draft' });
    expect(() => combineParams({ status: 'draft' }, { status: 'failed' })).toThrow(/both set status/);
  });
});

describe('narrows', () => {
  it.each([
    [{}, false],
    [{ sort: 'title' as const, order: 'asc' as const }, false],
    [{ hashtag: [] }, false],
    [{ hashtag: ['a'] }, true],
    [{ status: 'draft' as const }, true],
    [{ q: 'x' }, true],
  ])('%j → %s', (p, expected) => expect(narrows(p)).toBe(expected));
});
