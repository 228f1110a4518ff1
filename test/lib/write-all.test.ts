import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeAllSync } from "../../src/lib/write-all.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-write-all-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("writeAllSync", () => {
  it("writes the parts back to back, empty ones and more than one writev takes included", () => {
    const path = join(dir, "a");
    const fd = openSync(path, "a");
    const parts: Uint8Array[] = [];
    for (let i = 0; i < 2500; i++) parts.push(i % 7 === 0 ? new Uint8Array(0) : Buffer.from(`part ${i};`));
    // a view into a larger buffer writes only its own bytes
    parts.push(Buffer.from("xxTAILxx").subarray(2, 6));
    const n = writeAllSync(fd, parts);
    writeAllSync(fd, [Buffer.from("!")]);
    closeSync(fd);
    const want = Buffer.concat([...parts, Buffer.from("!")]).toString();
    expect(n).toBe(want.length - 1);
    expect(readFileSync(path, "utf8")).toBe(want);
  });
});
