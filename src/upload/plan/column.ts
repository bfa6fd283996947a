// A growing column of numbers for the plan's file table, kept in fixed blocks of BLOCK entries
// instead of one typed array doubled as it fills. Doubling copied the column into one twice its
// size at each step and left the old one to malloc: over 100,000 files ~6 MB of copies whose
// holes stayed in the process's heap, plus up to twice the room needed, and a last copy to
// shrink it (bench/notes.md, issue 41). Blocks are made as they are needed and never moved.

/** Entries per block (a power of two, so an id splits with a shift and a mask). */
const BLOCK_BITS = 13;
const BLOCK = 1 << BLOCK_BITS;
const MASK = BLOCK - 1;

type Block = Float64Array | Uint32Array | Uint8Array;

export class Column<T extends Block> {
  readonly #make: (n: number) => T;
  readonly #blocks: T[] = [];

  constructor(make: (n: number) => T) {
    this.#make = make;
  }

  get(id: number): number {
    return this.#blocks[id >>> BLOCK_BITS]![id & MASK]!;
  }

  /** Sets entry `id`, making its block if it has none yet (ids are added in order). */
  set(id: number, value: number): void {
    const b = id >>> BLOCK_BITS;
    while (this.#blocks.length <= b) this.#blocks.push(this.#make(BLOCK));
    this.#blocks[b]![id & MASK] = value;
  }
}

export const float64Column = () => new Column((n) => new Float64Array(n));
export const uint32Column = () => new Column((n) => new Uint32Array(n));
export const uint8Column = () => new Column((n) => new Uint8Array(n));
