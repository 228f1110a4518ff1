import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration, parseSize } from "../../src/lib/units.ts";

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
});
