// Preloaded (node --require) by test/e2e/version.test.ts: the process reports Node 20.18.0, so the
// launcher's check of an unsupported Node is tested on the supported Nodes the tests run on.
'use strict';
Object.defineProperty(process.versions, 'node', { value: '20.18.0' });
