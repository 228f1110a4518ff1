// A stream's head held as the batches its entries came in (head.ts): the same
// entries, order, repeats dropped and cut columns as a head of entry objects
// sorted stably by time, on seeded random batches.
import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/apps/logstore/core/chunks.ts";
import { batchOf, chunkInputOf, countIn, Head, snapshotEntries } from "../../src/apps/logstore/core/head.ts";
import { mulberry32 } from "../helpers/rng.ts";

/** the reference: entries added one by one, a repeat of the last one added dropped, then a stable sort by time */
function reference(batches: Entry[][]): Entry[] {
  const kept: Entry[] = [];
  let last: Entry | undefined;
  for (const b of batches) {
    for (const e of b) {
      if (last && last.ts === e.ts && last.line === e.line) continue;
      kept.push(e);
      last = e;
    }
  }
  return kept.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
}

const plain = (entries: Entry[]) => entries.map((e) => ({ ts: e.ts, line: e.line, ...(e.metadata ? { metadata: e.metadata } : {}) }));

describe("log store heads as batches", () => {
  it("hold the entries in time order, drop repeats across and within batches, and cut to the same columns", () => {
    const rand = mulberry32(18);
    for (let round = 0; round < 40; round++) {
      const head = new Head();
      const batches: Entry[][] = [];
      let t = 1_000n;
      const words = ["a", "b", "caf\u00e9", "\u65e5\u672c", "\u{1F600}", "x".repeat(30)];
      for (let b = 0; b < 1 + Math.floor(rand() * 6); b++) {
        const entries: Entry[] = [];
        for (let i = 0; i < Math.floor(rand() * 20); i++) {
          const r = rand();
          // mostly in order, some equal timestamps, some late
          t += r < 0.6 ? BigInt(1 + Math.floor(rand() * 5)) : r < 0.8 ? 0n : -BigInt(Math.floor(rand() * 30));
          const prev = entries.at(-1) ?? batches.at(-1)?.at(-1);
          const line = rand() < 0.15 && prev ? prev.line : `${words[Math.floor(rand() * words.length)]} ${Math.floor(rand() * 4)}`;
          const e: Entry = { ts: rand() < 0.15 && prev ? prev.ts : t, line };
          if (rand() < 0.1) e.metadata = { k: `v${i}` };
          entries.push(e);
        }
        batches.push(entries);
        head.add(batchOf(entries));
      }
      const want = reference(batches);
      expect(head.length).toBe(want.length);
      expect(plain(head.entries())).toEqual(plain(want));
      if (want.length) {
        expect(head.from).toBe(want[0]!.ts);
        expect(head.to).toBe(want.at(-1)!.ts);
        const cut = head.toInput();
        const ref = chunkInputOf(want);
        expect([...cut.ts]).toEqual([...ref.ts]);
        expect([...cut.offsets]).toEqual([...ref.offsets]);
        expect(Buffer.from(cut.lines).equals(Buffer.from(ref.lines))).toBe(true);
        expect(cut.metadata ?? []).toEqual(ref.metadata ?? []);
        expect(head.bytes).toBe(want.reduce((n, e) => n + e.line.length + (e.metadata ? JSON.stringify(e.metadata).length : 0), 0));
        const lo = want[Math.floor(want.length / 3)]!.ts;
        const hi = want[Math.floor((2 * want.length) / 3)]!.ts;
        const inRange = want.filter((e) => e.ts >= lo && e.ts <= hi);
        expect(countIn(head.snapshot(), lo, hi)).toEqual({ entries: inRange.length, bytes: inRange.reduce((n, e) => n + Buffer.byteLength(e.line), 0) });
      }
    }
  });

  it("a snapshot keeps what the head held: later batches and a new head after a cut do not change it", () => {
    const head = new Head();
    head.add(batchOf([{ ts: 5n, line: "five" }, { ts: 7n, line: "seven" }]));
    const snap = head.snapshot();
    head.add(batchOf([{ ts: 6n, line: "six" }]));
    expect(snapshotEntries(snap).map((e) => e.line)).toEqual(["five", "seven"]);
    expect(head.entries().map((e) => e.line)).toEqual(["five", "six", "seven"]);
    // the same entry as the last one added, in the next batch: dropped
    head.add(batchOf([{ ts: 6n, line: "six" }, { ts: 6n, line: "six again" }]));
    expect(head.entries().map((e) => e.line)).toEqual(["five", "six", "six again", "seven"]);
  });
});
