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

describe('an unsupported Node', () => {
  it.each(['20.18.0', '22.15.1'])('%s is told which Node to install, before anything else runs', async (version) => {
    const home = await tempHome();
    try {
      const r = await cli(home.dir, ['ls'], {
        env: { NODE_OPTIONS: `--require ${ROOT}/test/support/pretend-node.cjs`, PRETEND_NODE_VERSION: version },
      });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`contentlib needs Node.js 22 (22.16 or later), 24 or 26; this is Node.js ${version}.`);
      expect(r.stderr).toMatch(/Install a supported Node\.js/);
    } finally {
      await home.remove();
    }
  });
});
