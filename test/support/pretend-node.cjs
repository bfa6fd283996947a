// Preloaded (node --require) by test/e2e/version.test.ts: the process reports the Node version in
// PRETEND_NODE_VERSION, so the launcher's check of an unsupported Node is tested on the supported
// Nodes the tests run on (no Node 20 is installed for them).
'use strict';
Object.defineProperty(process.versions, 'node', { value: process.env.PRETEND_NODE_VERSION });
