// `upload --json`: the NDJSON lines on stdout, as zod schemas — the one written definition of
// what scripts read (docs/cli.md lists the same fields). progress-json.ts and upload-skips.ts
// build the objects with these types; the tests parse every line of real runs with them.
import * as z from 'zod';
import { METADATA_FIELDS } from '../../upload/send/metadata-diff.js';

/**
 * A file, in every event that names one: the same object whether the plan, the engine or a
 * refusal speaks of it. `size` is null where the file could not be read, `item` where it belongs
 * to no planned item (a skipped file, a refused one).
 */
export const FileObjectSchema = z.strictObject({
  /** Absolute path. */
  path: z.string(),
  /** Base name. */
  name: z.string(),
  size: z.number().int().nonnegative().nullable(),
  /** 0-based index of the planned item it belongs to. */
  item: z.number().int().nonnegative().nullable(),
  role: z.enum(['file', 'thumbnail']),
});
export type FileObject = z.infer<typeof FileObjectSchema>;

export const TargetSchema = z.union([
  z.strictObject({ kind: z.literal('remote'), baseUrl: z.string(), profile: z.string().optional() }),
  z.strictObject({ kind: z.literal('embedded'), dataDir: z.string() }),
]);

const StepSchema = z.enum(['presign', 'put', 'complete', 'patch', 'check']);

export const PlannedEventSchema = z.strictObject({
  type: z.literal('planned'),
  items: z.number().int(),
  files: z.number().int(),
  bytes: z.number().int(),
  alreadyDone: z.number().int(),
  target: TargetSchema,
});

export const ProblemEventSchema = z.strictObject({
  type: z.literal('problem'),
  /** The file it is about; null for a flag, an input that matched nothing, a manifest. */
  file: FileObjectSchema.nullable(),
  /** What it is about as the messages name it: a path, a folder, `--title`, a manifest item. */
  subject: z.string(),
  rule: z.string(),
  actual: z.string(),
  message: z.string(),
  hint: z.string().nullable(),
  /** --skip-invalid: this file (or item) was left out and the rest uploaded. */
  leftOut: z.boolean(),
});

export const PlanSkippedEventSchema = z.strictObject({
  type: z.literal('skipped'),
  file: FileObjectSchema,
  /** As messages show it (relative to the working directory). */
  path: z.string(),
  kind: z.enum(['system', 'hidden', 'unsupported', 'not-media', 'sidecar', 'link']),
  reason: z.string(),
  hint: z.string().optional(),
});

/** Not sent: done by an earlier run (the journal), or its bytes are in the library already (`inLibrary`). */
export const JournalSkippedEventSchema = z.strictObject({
  type: z.literal('skipped'),
  file: FileObjectSchema,
  itemId: z.string(),
  reason: z.string(),
  inLibrary: z.literal(true).optional(),
});

/** Something to know once (e.g. that duplicates are found by this machine's journal only). */
export const NoticeEventSchema = z.strictObject({ type: z.literal('notice'), message: z.string() });

export const EngineEventSchemas = [
  z.strictObject({
    type: z.literal('started'),
    file: FileObjectSchema,
    /** Bytes of the file an earlier run stored already (a resumed multipart upload): not sent again. */
    resumedFrom: z.number().int().nonnegative().optional(),
  }),
  z.strictObject({ type: z.literal('uploaded'), file: FileObjectSchema, ms: z.number() }),
  z.strictObject({
    type: z.literal('completed'),
    file: FileObjectSchema,
    itemId: z.string(),
    itemType: z.enum(['shortform', 'longform', 'carousel']),
    sortOrder: z.number().int().optional(),
    created: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('failed'),
    file: FileObjectSchema.optional(),
    item: z.number().int(),
    message: z.string(),
    step: StepSchema.optional(),
    code: z.string().optional(),
  }),
  z.strictObject({
    type: z.literal('retrying'),
    step: StepSchema,
    file: FileObjectSchema,
    attempt: z.number().int(),
    delayMs: z.number(),
    reason: z.string(),
  }),
] as const;

/** Why a run ended before a summary of items could be made: a refusal or a failure, with its exit code. */
export const ErrorEventSchema = z.strictObject({
  type: z.literal('error'),
  exitCode: z.number().int(),
  message: z.string(),
});

/** A metadata field as `differs` and `updated` name it. */
export const MetadataFieldSchema = z.enum(METADATA_FIELDS);

export const SummaryItemSchema = z.strictObject({
  id: z.string().nullable(),
  /** The title it was given (flags, sidecar, manifest, folder); null: the service names it after its file. */
  title: z.string().nullable(),
  type: z.enum(['shortform', 'longform', 'carousel']),
  outcome: z.enum(['created', 'appended', 'skipped', 'partial', 'failed', 'interrupted']),
  source: z.string(),
  index: z.number().int(),
  filesCompleted: z.number().int(),
  filesSkipped: z.number().int(),
  /** Of filesSkipped, those whose bytes the library held already (found by checksum). */
  filesInLibrary: z.number().int(),
  filesTotal: z.number().int(),
  message: z.string().nullable(),
  keyRejected: z.boolean(),
  deletedItemId: z.string().nullable(),
  /**
   * The item was in the library before this run and the local metadata differs from it in these
   * fields: not applied (--update-metadata applies them). Empty when none differ.
   */
  differs: z.array(MetadataFieldSchema),
  /** --update-metadata: the fields of an item already in the library this run changed. */
  updated: z.array(MetadataFieldSchema),
});

/** The last line of every run: the same fields whatever happened. */
export const SummarySchema = z.strictObject({
  type: z.literal('summary'),
  /** Null when the run stopped before the library was known (a usage error). */
  target: TargetSchema.nullable(),
  /** The exit code of the command. */
  exitCode: z.number().int(),
  /** Nothing was sent because of the plan's problems, or the run was refused before it began. */
  refused: z.boolean(),
  created: z.number().int(),
  appended: z.number().int(),
  skipped: z.number().int(),
  partial: z.number().int(),
  failed: z.number().int(),
  interrupted: z.boolean(),
  problems: z.number().int(),
  skippedFiles: z.number().int(),
  /** Files not sent because their bytes were in the library already. */
  inLibraryFiles: z.number().int(),
  /** Items already in the library whose metadata differs from the local one (not applied). */
  differing: z.number().int(),
  /** Items already in the library whose metadata this run changed (--update-metadata). */
  updated: z.number().int(),
  leftOut: z.number().int(),
  missingScope: z.string().nullable(),
  bytesSent: z.number().int(),
  /** Bytes of large files stored as parts but not yet part of an item: kept for the next run (0 when none). */
  bytesKept: z.number().int(),
  ms: z.number().int(),
  items: z.array(SummaryItemSchema),
});
export type SummaryLine = z.infer<typeof SummarySchema>;

/** Any line `upload --json` prints during a run (not --dry-run, which prints one plan object). */
export const UploadLineSchema = z.union([
  PlannedEventSchema,
  ProblemEventSchema,
  PlanSkippedEventSchema,
  JournalSkippedEventSchema,
  NoticeEventSchema,
  ...EngineEventSchemas,
  ErrorEventSchema,
  SummarySchema,
]);
