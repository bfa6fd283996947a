// Every change of the metadata store is a decision written once for both databases (./steps.ts):
// the completion (./completion.ts), a carousel's images (./carousel.ts), an item's update and
// deletion (./item-changes.ts), an upload's reservation, abort and abandonment
// (./upload-changes.ts), a key's creation and revocation (./key-changes.ts). Each database
// answers all their steps, in the transaction of the change: SQLite in ./sqlite/repo.ts, PostgreSQL in
// ./pg/repo.ts (both mapped onto the steps once, in ./assemble.ts); a Repo method only runs one decision.
import type { CompletionSteps } from './completion.js';
import type { KeySteps } from './key-changes.js';
import type { AsyncSteps } from './steps.js';
import type { UploadSteps } from './upload-changes.js';

/** The steps of every decision (CompletionSteps extends a carousel's, which extends an item's). */
export type RepoSteps = CompletionSteps & UploadSteps & KeySteps;

/** The same steps on a database that answers asynchronously. */
export type AsyncRepoSteps = AsyncSteps<RepoSteps>;
