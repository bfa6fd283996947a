// The upload command's pure parts: flags → metadata, and outcome → exit code.
import { describe, expect, it } from 'vitest';
import { metadataFromFlags, outcomeError } from '../../src/cli/commands/upload.js';
import { EXIT, UsageError } from '../../src/cli/errors.js';
import type { ItemOutcome, UploadSummary } from '../../src/upload/events.js';

const item = (status: ItemOutcome['status'], itemId?: string): ItemOutcome => ({
  index: 0,
  type: 'shortform',
  source: 'a.mp4',
  status,
  filesCompleted: 0,
  filesSkipped: 0,
  filesTotal: 1,
  ...(itemId ? { itemId } : {}),
});
const rejected: ItemOutcome = { ...item('failed'), keyRejected: true };
const summary = (items: ItemOutcome[], interrupted = false): UploadSummary => ({
  items,
  interrupted,
  bytesSent: 0,
  ms: 0,
});

describe('upload exit codes', () => {
  it.each([
    [[item('created', 'a'), item('skipped', 'b')], false, undefined],
    [[item('created', 'a'), item('failed')], false, EXIT.partial],
    [[item('partial', 'a')], false, EXIT.partial],
    [[item('failed'), item('failed')], false, EXIT.failure],
    [[item('created', 'a'), item('interrupted')], true, EXIT.interrupted],
    [[rejected, rejected], false, EXIT.auth],
    [[rejected, item('failed')], false, EXIT.failure],
    [[item('created', 'a'), rejected], false, EXIT.partial],
  ] as const)('%j interrupted=%s → %s', (items, interrupted, code) => {
    expect(outcomeError(summary([...items], interrupted), 'https://content.example.com')?.exitCode).toBe(code);
  });

  it('a refused key says to log in again, naming the service', () => {
    const err = outcomeError(summary([rejected]), 'https://content.example.com/');
    expect(err?.message).toBe('https://content.example.com rejected the API key (unknown or revoked key).');
    expect(err?.hint).toContain('contentlib login --base-url https://content.example.com');
  });
});

describe('metadata flags', () => {
  it('parses hashtags and --platform the way edit does', async () => {
    const m = await metadataFromFlags({
      concurrency: 4,
      title: 'T',
      hashtags: '#a, b b',
      platform: ['youtube.visibility=private', 'tiktok.duet=false', 'youtube.tags=["x"]'],
    });
    expect(m).toEqual({
      title: 'T',
      hashtags: ['a', 'b'],
      platformSettings: { youtube: { visibility: 'private', tags: ['x'] }, tiktok: { duet: false } },
    });
  });

  it('rejects a malformed --platform before anything else happens', async () => {
    await expect(metadataFromFlags({ concurrency: 4, platform: ['visibility'] })).rejects.toBeInstanceOf(UsageError);
  });
});
