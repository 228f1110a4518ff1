// RawIndex (raw-index.ts): the head's series ids by raw key behave as a Map
// through any mix of inserts, overwrites, deletes and growth, with keys
// crowded onto the same slots (so probing wraps around the table's end and
// deletion has to move entries back).
import { describe, expect, it } from "vitest";
import { RawIndex } from "../../src/apps/metrics/core/raw-index.ts";
import { mulberry32 } from "../helpers/rng.ts";

describe("RawIndex", () => {
  it("answers as a Map would through random inserts, overwrites and deletes", () => {
    for (const [seed, range] of [[1, 40], [2, 300], [3, 2 ** 53]] as const) {
      const rnd = mulberry32(seed);
      const index = new RawIndex(4);
      const model = new Map<number, number>();
      for (let step = 0; step < 20_000; step++) {
        const key = 1 + Math.floor(rnd() * Math.min(range, 2 ** 53 - 1));
        const op = rnd();
        if (op < 0.55) {
          index.set(key, step);
          model.set(key, step);
        } else if (op < 0.85) expect(index.delete(key)).toBe(model.delete(key));
        else expect(index.get(key)).toBe(model.get(key) ?? -1);
        expect(index.size).toBe(model.size);
      }
      for (const [key, id] of model) expect(index.get(key)).toBe(id);
      expect(new Map(index.entries())).toEqual(model);
    }
  });

  it("keeps keys that share a slot apart (keys a table-size apart) and never keeps 0", () => {
    const index = new RawIndex(4);
    const keys = [5, 5 + 16, 5 + 32, 5 + 2 ** 40, 2 ** 53 - 1];
    keys.forEach((k, i) => index.set(k, i));
    index.set(0, 99);
    expect(index.get(0)).toBe(-1);
    expect(index.delete(0)).toBe(false);
    keys.forEach((k, i) => expect(index.get(k)).toBe(i));
    expect(index.delete(5 + 16)).toBe(true);
    expect(index.get(5 + 16)).toBe(-1);
    expect([5, 5 + 32, 5 + 2 ** 40, 2 ** 53 - 1].map((k) => index.get(k))).toEqual([0, 2, 3, 4]);
  });
});
