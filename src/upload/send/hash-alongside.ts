// A large video hashed while its parts are sent (issue 41). Declaring the SHA-256 at presign buys
// nothing for a multipart upload on any store (docs/api.md "Declared at complete"), so instead of
// reading the whole file for its hash before the first part goes, the parts start at once and the
// file is hashed beside them (./hash-fed.ts): read ahead of the parts at the disk's pace when the
// library is to be asked about it, else fed from the bytes the parts read (the file read once).
// When the hash is ready the library is asked whether it holds those bytes (the "already there"
// check, ./identify.ts `lookup`):
// - it does: the parts stop, the multipart upload is aborted and forgotten, and the file takes
//   the "already there" path as if it had been checked first;
// - it does not: the parts go on, and complete declares the SHA-256 (the engine's completeFile).
// The file's progress is shown as it is sent, and the bytes count as sent; only its `uploaded`
// waits for the answer (and for the parts): a file found in the library says `skipped` instead,
// and nothing more. The engine decides which files go this way (`alongsideEligible`) and falls
// back to the old order (hash, check, presign with the SHA-256) when the service cannot take parts
// or refuses the SHA-256 at complete.
import { ApiError } from '../../api/errors.js';
import { MULTIPART_THRESHOLDS } from '../../rules/parts.js';
import { type EmitFn, type FileRef, StepError, type UploadEvent } from './events.js';
import { fedHash } from './hash-fed.js';
import type { ItemIdentity } from './identify.js';
import { type SentPart, abortQuietly, continueParts, startParts } from './multipart.js';
import { forgetParts, multipartContext } from './run-parts.js';
import { type EngineItem, type Run, judge, retryEvent, settle } from './run.js';
import { type SendableFile, transferFile } from './transfer.js';

/** What the hash and the library said of the file: `identity` undefined when it was not hashed (checksums off). */
export interface Verdict {
  sha256?: string;
  identity?: ItemIdentity;
}

/** The file's bytes are stored under `key` (as parts, or a single PUT when parts were not offered); complete declares `sha256`. */
export interface SentAlongside {
  key: string;
  parts?: SentPart[];
  sha256?: string;
}

export type AlongsideResult = { kind: 'sent'; sent: SentAlongside } | { kind: 'found'; identity: ItemIdentity };

/**
 * A file that goes this way: the only file of a video item (a carousel's images keep the old
 * order: an item's verdict is over all its images), large enough for the service to offer parts,
 * and the service able to take parts. Decided when the identifier plans its batches, so such a
 * file is not hashed there.
 */
export function alongsideEligible(run: Run, item: EngineItem, file: SendableFile): boolean {
  return (
    item.type !== 'carousel' &&
    item.files.length === 1 &&
    file.size > MULTIPART_THRESHOLDS.offerAboveBytes &&
    run.lateChecksum &&
    multipartContext(run) !== undefined
  );
}

/**
 * Hashes the file (unless checksums are off) and asks the library about it (unless --force).
 * `hashed`: where the SHA-256 comes from (the identifier's read of the file, unless given).
 */
export async function verdictOf(
  run: Run,
  file: SendableFile,
  ref: FileRef,
  hashed: () => Promise<string | undefined> = () => run.identifier.sha256Of(file),
): Promise<Verdict> {
  const sha256 = await hashed().catch((err: unknown) => {
    throw new StepError('hash', err);
  });
  if (!sha256) return {};
  const matches = run.deps.force ? undefined : await run.identifier.lookup(file, sha256, retryEvent(run, 'check', ref));
  return { sha256, identity: { sha256: [sha256], matches: [matches] } };
}

/**
 * Sends the file's parts while it is hashed and looked for in the library; resolves when the
 * parts are all stored (sent) or the library is found to hold the file (found: nothing is left
 * on the service). `isFound` is the engine's reading of the library's answer. The caller holds a
 * slot of the run's transfer pool, as for any transfer.
 */
export function sendAlongside(
  run: Run,
  item: EngineItem,
  file: SendableFile,
  ref: FileRef,
  signal: AbortSignal,
  isFound: (identity: ItemIdentity) => boolean,
): Promise<AlongsideResult> {
  return (async () => {
    const { journal } = run.deps;
    const stop = new AbortController();
    const sending = AbortSignal.any([signal, stop.signal]);
    const gate = eventGate(run.emit);
    const onBytes = (n: number) => void (run.bytesSent += n);
    let key: string | undefined;
    const ctx = multipartContext(run);
    // Hashed from what the parts read; nothing to hash when no checksum is declared (checksums off).
    // Looked for in the library once hashed: the hash reads ahead of the parts, so a file the
    // library holds is found at the disk's pace; otherwise it waits for them and the file is read once.
    const fed = run.identifier.declares ? fedHash(file, { waitForParts: !run.identifier.asks }) : undefined;
    const send = async (): Promise<{ key: string; parts?: SentPart[] }> => {
      try {
        const parts = { file, ref, type: item.type, sha256: undefined };
        const pctx = ctx && { ...ctx, emit: gate.emit, onBytes, ...(fed ? { reads: fed.reads } : {}) };
        const resumed = pctx ? await continueParts(parts, pctx, sending) : undefined;
        if (resumed) return resumed;
        const presigned = await transferFile(file, ref, { type: item.type }, run.deps, gate.emit, sending, {
          onPresigned: (p) => {
            key = p.key;
            journal.recordPresigned(file, { key: p.key, type: item.type });
          },
          onBytes,
          // Found while presign is on its way: its answer names the upload, which is then aborted
          // (stopped with it, the upload the service opened would wait for the sweeper).
          presignSignal: signal,
          // No parts offered: the single PUT feeds the hash as the parts would.
          ...(fed ? { reads: fed.reads } : {}),
          ...(pctx
            ? {
                multipart: {
                  asks: () => !run.noParts,
                  refused: () => (run.noParts = true),
                  send: (p) => startParts(parts, p, pctx, sending),
                },
              }
            : {}),
        });
        return { key: presigned.key, ...(presigned.parts ? { parts: presigned.parts } : {}) };
      } catch (err) {
        judge(run, err, sending);
        throw err instanceof StepError ? err : new StepError('put', err);
      }
    };
    // Sent or failed, the parts read no more: the hash reads what they left (the verdict still
    // stands when the send failed, as when the file was hashed on its own).
    const sent = settle(send().finally(() => fed?.reads.done()));
    const hashed = async () => {
      if (!fed) return undefined;
      const sha256 = await fed.digest(signal);
      run.deps.onFedHash?.(file, { ...fed.counts });
      return sha256;
    };
    const verdict = await settle(verdictOf(run, file, ref, hashed));
    const found = verdict.ok && verdict.value.identity && isFound(verdict.value.identity);
    if (!verdict.ok || found) {
      // Stopped here: not wanted (the library has it), or hashing or the check failed (the file
      // is then reported as failed in that step, as before). A stop (Ctrl-C) keeps the upload
      // for the next run to continue.
      stop.abort(new Error('the library holds this file, or it could not be identified'));
      await sent;
      gate.drop();
      if (signal.aborted) throw verdict.ok ? signal.reason : verdict.error;
      await dropUpload(run, file, key);
      if (!verdict.ok) throw verdict.error;
      return { kind: 'found', identity: verdict.value.identity! };
    }
    gate.release();
    const done = await sent;
    if (!done.ok) throw done.error;
    journal.recordPut(file, done.value.key);
    const { sha256 } = verdict.value;
    if (sha256 && done.value.parts) journal.recordMultipartSha256(done.value.key, sha256);
    return { kind: 'sent', sent: { ...done.value, ...(sha256 ? { sha256 } : {}) } };
  })();
}

/** The file's upload is not wanted: aborted on the service and forgotten by the journal. */
async function dropUpload(run: Run, file: SendableFile, key: string | undefined): Promise<void> {
  const multipartKey = run.deps.journal.multipart(file.path)?.key;
  run.deps.journal.dropPending(file);
  await forgetParts(run, file);
  // A single PUT's upload (presign did not offer parts) is closed by the same endpoint.
  const { abortUpload } = run.deps.api;
  if (key && key !== multipartKey && abortUpload) await abortQuietly({ abortUpload }, key);
}

/**
 * A file's transfer events, passed on as they come except `uploaded`, which waits for the
 * library's answer (`release`: the file is sent, its `uploaded` follows); a file found in the
 * library says `skipped` instead, and nothing more of its transfer is passed on (`drop`). Not the
 * whole transfer held: a hash that waits for the parts (./hash-fed.ts, with --force or a service
 * that cannot answer the check) is ready only as they read the last bytes, and holding it all
 * would hide a large file's progress for its whole upload.
 */
function eventGate(emit: EmitFn) {
  let state: 'sending' | 'sent' | 'dropped' = 'sending';
  let uploaded: UploadEvent | undefined;
  return {
    emit(event: UploadEvent) {
      if (state === 'dropped') return;
      if (state === 'sending' && event.type === 'uploaded') uploaded = event;
      else emit(event);
    },
    release() {
      if (state !== 'sending') return;
      state = 'sent';
      if (uploaded) emit(uploaded);
      uploaded = undefined;
    },
    drop() {
      state = 'dropped';
      uploaded = undefined;
    },
  };
}

/**
 * A 400 to complete's `sha256` from a service without the extension (it refuses the unknown
 * field), told apart from the extension's own answers about it: a mismatch (`bad_digest`) or one
 * that differs from presign's (`invalid_upload`).
 */
export function refusesLateChecksum(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.status !== 400) return false;
  if (err.is('bad_digest') || err.is('invalid_upload')) return false;
  const named = (d: unknown) => typeof d === 'object' && d !== null && JSON.stringify(d).includes('sha256');
  return err.message.includes('sha256') || err.details.some(named);
}
