// The jq-web package (jq compiled to WebAssembly by Emscripten) ships no types. Its module is
// CommonJS: `module.exports` is a promise of the ready instance (require it, do not import it).
declare module 'jq-web' {
  /** jq as a function: `raw(json, filter, flags)` is `echo json | jq flags filter`'s stdout. */
  export interface JqEngine {
    /** Throws an Error whose message is "Non-zero exit code: N" and jq's stderr. */
    raw(json: string, filter: string, flags?: string[]): string | undefined;
  }
  const ready: Promise<JqEngine>;
  export = ready;
}
