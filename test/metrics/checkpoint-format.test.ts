// The checkpoint file format (checkpoint.ts): version 2 gives back every part
// of a head a start needs, numbers of every kind bit for bit, in a file
// smaller than version 1's; a version 1 checkpoint (the release before:
// fixtures/checkpoint-v1.bin, made by it from fillSampleHead) is still read.
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCheckpoint, writeCheckpoint } from "../../src/apps/metrics/core/checkpoint.ts";
import { TenantHead } from "../../src/apps/metrics/core/head.ts";
import { describeHead, fillSampleHead, SAMPLE_T } from "./checkpoint-sample.ts";

const dirs: string[] = [];
// (the fixture's values come from arithmetic every runtime rounds alike)
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "outpost-checkpoint-format-"));
  dirs.push(d);
  return d;
};

function readInto(path: string): { heads: Map<string, TenantHead>; segment: number; series: number } {
  const heads = new Map<string, TenantHead>();
  const r = readCheckpoint(path, (tenant) => {
    const h = new TenantHead(tenant);
    heads.set(tenant, h);
    return h;
  });
  return { heads, ...r };
}

describe("metrics checkpoint format", () => {
  it("reads a version 1 checkpoint (the release before) into the head it was written from", () => {
    const dir = tmp();
    const path = join(dir, "checkpoint.00000042");
    copyFileSync(join(import.meta.dirname, "fixtures", "checkpoint-v1.bin"), path);
    const { heads, segment, series } = readInto(path);
    expect(segment).toBe(42);
    expect(series).toBe(24);
    const expected = new TenantHead("tenant-ü");
    fillSampleHead(expected);
    expect(describeHead(heads.get("tenant-ü")!)).toEqual(describeHead(expected));
    expect(heads.get("empty")!.seriesCount).toBe(0);
  });

  it("writes version 2 and reads it back whole, in less room than version 1", async () => {
    const h = new TenantHead("tenant-ü");
    fillSampleHead(h);
    const dir = tmp();
    const written = await writeCheckpoint(dir, 7, [h, new TenantHead("empty")], { sliceMs: 0 });
    const { heads, segment, series } = readInto(written.path);
    expect({ segment, series }).toEqual({ segment: 7, series: 24 });
    expect(describeHead(heads.get("tenant-ü")!)).toEqual(describeHead(h));
    expect(written.bytes).toBeLessThan(statSync(join(import.meta.dirname, "fixtures", "checkpoint-v1.bin")).size);
  });

  it("keeps numbers no varint holds: no samples, infinities, fractions, times far from the newest, a negative zero value", async () => {
    const h = new TenantHead("t");
    const none = h.addSeries([{ name: "__name__", value: "never" }]);
    const odd = h.addSeries([{ name: "__name__", value: "odd" }]);
    h.append(odd, SAMPLE_T, -0, SAMPLE_T);
    h.append(odd, SAMPLE_T + 1, Number.MAX_VALUE, SAMPLE_T);
    odd.lastSeen = 1.5;
    odd.persistedMaxT = 2 ** 60;
    odd.firstT = -(2 ** 55);
    const far = h.addSeries([{ name: "__name__", value: "far" }]);
    h.append(far, -8_000_000_000_000, 1, 0);
    h.append(far, SAMPLE_T + 2, 2, Number.MAX_SAFE_INTEGER);
    h.setRaw(2 ** 52 + 12345, 0xffffffff, far);
    const dir = tmp();
    const written = await writeCheckpoint(dir, 1, [h], { sliceMs: 0 });
    const back = readInto(written.path).heads.get("t")!;
    expect(describeHead(back)).toEqual(describeHead(h));
    expect(back.byId.get(none.id)!.firstT).toBe(Infinity);
    expect(back.byId.get(none.id)!.lastT).toBe(-Infinity);
    expect(back.byId.get(odd.id)!.lastSeen).toBe(1.5);
    expect(back.findRaw(2 ** 52 + 12345, 0xffffffff)?.id).toBe(far.id);
  });
});
