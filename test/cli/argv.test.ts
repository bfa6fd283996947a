// `--json FIELDS` next to `--json` alone: which word after --json is a field list.
import { describe, expect, it } from 'vitest';
import { splitJsonFields } from '../../src/cli/argv.js';

const COMMANDS = ['ls', 'show', 'upload', 'rm', 'help', 'keys', 'list'];
const exists = (p: string) => p === 'demo' || p === 'title';
const FIELDS = ['id', 'title', 'status'];

describe('splitJsonFields', () => {
  it.each([
    [
      ['ls', '--json', 'id,title'],
      ['ls', '--json', '--json-fields', 'id,title'],
    ],
    [
      ['ls', '--json', 'idd,title'],
      ['ls', '--json', '--json-fields', 'idd,title'],
    ],
    [
      ['ls', '--json', 'status'],
      ['ls', '--json', '--json-fields', 'status'],
    ],
    [
      ['show', '--json', 'x'],
      ['show', '--json', 'x'],
    ],
    [
      ['upload', '--json', 'title'],
      ['upload', '--json', 'title'],
    ],
    [
      ['ls', '--json=id'],
      ['ls', '--json', '--json-fields', 'id'],
    ],
    [
      ['--json', 'ls', '--all'],
      ['--json', 'ls', '--all'],
    ],
    [
      ['--json', 'keys', 'list'],
      ['--json', 'keys', 'list'],
    ],
    [
      ['show', '--json', '3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11'],
      ['show', '--json', '3f0c2a4e-8d1b-4c9e-9a57-2b1f0e6d7c11'],
    ],
    [
      ['upload', '--json', 'demo'],
      ['upload', '--json', 'demo'],
    ],
    [
      ['upload', '--json', 'clips/a.mp4'],
      ['upload', '--json', 'clips/a.mp4'],
    ],
    [
      ['ls', '--json', '--all'],
      ['ls', '--json', '--all'],
    ],
    [
      ['rm', '--', '--json', 'id'],
      ['rm', '--', '--json', 'id'],
    ],
    [
      ['ls', '--json'],
      ['ls', '--json'],
    ],
  ])('%j → %j', (argv, want) => {
    expect(splitJsonFields(argv, exists, COMMANDS, FIELDS)).toEqual(want);
  });
});
