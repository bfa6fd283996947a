// Where the tests find the repository, the built binary (`npm test` builds dist/ first) and the
// fixture media.
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/contentlib.js');
export const FIXTURES = join(ROOT, 'fixtures');
