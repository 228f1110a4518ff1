import { describe, expect, it } from "vitest";
import { formatDuration, formatRfc3339, parseDuration, parseSize } from "../../src/lib/units.ts";

describe("units", () => {
  it("parses Prometheus-style durations into milliseconds", () => {
    expect(parseDuration("10s")).toBe(10_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("7d")).toBe(604_800_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("0")).toBe(0);
    for (const bad of ["", "10", "s", "1x", "1h 30m", "-1s"]) expect(parseDuration(bad)).toBeUndefined();
  });

  it("formats durations back", () => {
    expect(formatDuration(5_400_000)).toBe("1h30m");
    expect(formatDuration(0)).toBe("0s");
  });

  it("parses sizes as go-humanize does (KB = 1000, KiB = 1024)", () => {
    expect(parseSize("256KB")).toBe(256_000);
    expect(parseSize("16MiB")).toBe(16_777_216);
    expect(parseSize("1024")).toBe(1024);
    expect(parseSize("4 MB")).toBe(4_000_000);
    expect(parseSize("1.5KiB")).toBe(1536);
    for (const bad of ["", "MB", "12 parsecs", "-1KB"]) expect(parseSize(bad)).toBeUndefined();
  });

  it("writes nanosecond timestamps as Go's RFC 3339 for any year (no Invalid Date)", () => {
    const ns = (ms: number) => BigInt(ms) * 1_000_000n;
    for (const ms of [0, -1000, 951_782_400_000, 1_709_164_800_000, -62_135_596_800_000, 253_402_300_799_000, -5e12]) {
      expect(formatRfc3339(ns(ms))).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));
    }
    expect(formatRfc3339(-(2n ** 63n))).toBe("1677-09-21T00:12:43Z");
    expect(formatRfc3339(2n ** 63n - 1n)).toBe("2262-04-11T23:47:16Z");
    expect(formatRfc3339(2n ** 62n * 1_000_000_000n)).toBe("146138514283-06-19T07:45:04Z");
    expect(formatRfc3339(-1n)).toBe("1969-12-31T23:59:59Z");
  });
});
