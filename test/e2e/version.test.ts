// `contentlib --version` answers from package.json (bin/contentlib.js's fast path) and agrees
// with the program's own answer, which commander gives when other arguments come with it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from '../support/cli.js';
import { ROOT } from '../support/paths.js';

const version = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version;

describe('--version', () => {
  it.each([[['--version']], [['-V']], [['--no-color', '--version']]])(
    "contentlib %j prints package.json's version",
    async (args) => {
      const home = await tempHome();
      try {
        const r = await cli(home.dir, args);
        expect(r).toMatchObject({ exitCode: 0, stdout: `${version}\n`.trimEnd(), stderr: '' });
      } finally {
        await home.remove();
      }
    },
  );
});
