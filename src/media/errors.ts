// Errors from reading media files. `reason` is a stable word that code can switch on (the
// server maps it to an API error, the plan to a problem line); `message` is the sentence for
// people and already says what to do about it.

export type MediaErrorReason =
  /** The file could not be opened or read (missing, permissions, a directory). */
  | 'unreadable'
  /** Zero bytes. */
  | 'empty'
  /** The bytes are not an MP4/MOV box structure at all. */
  | 'not_mp4'
  /** A box header is impossible (size smaller than its header, size past 2^53). */
  | 'malformed'
  /** A box claims more bytes than the file holds: the file was cut short. */
  | 'truncated'
  /** No `moov` box: the movie header was never written (interrupted recording or copy). */
  | 'no_moov'
  /** A `moov` box without `mvhd`. */
  | 'no_mvhd'
  /** The movie has no video track (`hdlr` of type `vide`): audio only, or no tracks at all. */
  | 'no_video_track'
  /** `mvhd` is there but gives no usable duration (zero timescale, unknown or zero duration), and neither do fragments. */
  | 'no_duration';

export class MediaError extends Error {
  readonly reason: MediaErrorReason;
  constructor(reason: MediaErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaError';
    this.reason = reason;
  }
}
