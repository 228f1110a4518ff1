// Series ids by the raw key of their labels (label-hash.ts rawLabelsHash: a
// 53-bit hash, never 0), for the million lookups and inserts a head makes
// when pushes name its series by their bytes. An open-addressing table in two
// typed arrays (linear probing, at most half full, deletion by shifting the
// entries after back): a fifth of a Map's memory for the same entries and no
// object per entry, and a lookup is a probe or two in a flat array.

const EMPTY = 0;

export class RawIndex {
  private keys: Float64Array;
  private ids: Int32Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.keys = new Float64Array(size);
    this.ids = new Int32Array(size);
    this.mask = size - 1;
  }

  get size(): number {
    return this.count;
  }

  /** the slot of a key: its bits spread over the table (keys are hashes already) */
  private home(key: number): number {
    return (key + Math.floor(key / 4294967296)) & this.mask;
  }

  /** the id kept for `key`, or -1 */
  get(key: number): number {
    if (key === EMPTY) return -1;
    const keys = this.keys;
    const mask = this.mask;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === key) return this.ids[i]!;
      if (k === EMPTY) return -1;
    }
  }

  /** keeps `id` for `key` (a key of 0 is not kept) */
  set(key: number, id: number): void {
    if (key === EMPTY) return;
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const mask = this.mask;
    for (let i = this.home(key); ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === key) {
        this.ids[i] = id;
        return;
      }
      if (k === EMPTY) {
        keys[i] = key;
        this.ids[i] = id;
        this.count++;
        return;
      }
    }
  }

  /** forgets `key`; the entries probed past it move back so every lookup still finds its own */
  delete(key: number): boolean {
    if (key === EMPTY) return false;
    const keys = this.keys;
    const ids = this.ids;
    const mask = this.mask;
    let i = this.home(key);
    for (; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === EMPTY) return false;
      if (k === key) break;
    }
    let hole = i;
    for (let j = (hole + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const h = this.home(keys[j]!);
      // an entry moves back into the hole unless its home lies after the hole (cyclically, up to j)
      if (((j - h) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j]!;
        ids[hole] = ids[j]!;
        hole = j;
      }
    }
    keys[hole] = EMPTY;
    ids[hole] = 0;
    this.count--;
    return true;
  }

  /** every [key, id] (in no set order) */
  *entries(): IterableIterator<[number, number]> {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) yield [keys[i]!, this.ids[i]!];
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldIds = this.ids;
    this.keys = new Float64Array(oldKeys.length * 2);
    this.ids = new Int32Array(oldKeys.length * 2);
    this.mask = this.keys.length - 1;
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldKeys[i] !== EMPTY) this.set(oldKeys[i]!, oldIds[i]!);
  }
}
