// from and to of /api/ds/query: epoch ms, durations ago, date math, RFC 3339.
import { describe, expect, it } from "vitest";
import { parseRangeTime, parseTimeRange } from "../../../../src/apps/dashboard/core/queries/relative-time.ts";

const NOW = Date.parse("2024-05-15T10:20:30.400Z");

describe("range times", () => {
  it("epoch milliseconds as numbers or strings; a bare duration means that long ago", () => {
    expect(parseRangeTime(1_700_000_000_000, "from", NOW)).toBe(1_700_000_000_000);
    expect(parseRangeTime("1700000000000", "from", NOW)).toBe(1_700_000_000_000);
    expect(parseRangeTime("5m", "from", NOW)).toBe(NOW - 300_000);
  });

  it("date math: now, now-1h, now-2d/d (from rounds down, to up to the end of the unit), calendar months", () => {
    expect(parseRangeTime("now", "to", NOW)).toBe(NOW);
    expect(parseRangeTime("now-1h", "from", NOW)).toBe(NOW - 3_600_000);
    expect(parseRangeTime("now-2d/d", "from", NOW)).toBe(Date.parse("2024-05-13T00:00:00.000Z"));
    expect(parseRangeTime("now-2d/d", "to", NOW)).toBe(Date.parse("2024-05-13T23:59:59.999Z"));
    expect(parseRangeTime("now/w", "from", NOW)).toBe(Date.parse("2024-05-13T00:00:00.000Z"));
    expect(parseRangeTime("now-1M", "from", NOW)).toBe(Date.parse("2024-04-15T10:20:30.400Z"));
    expect(parseRangeTime("2024-01-02T03:04:05Z", "from", NOW)).toBe(Date.parse("2024-01-02T03:04:05Z"));
  });

  it("anything else -> 400 naming the field; absent bounds -> the last 6 hours", () => {
    expect(() => parseRangeTime("yesterday", "to", NOW)).toThrow(/to: "yesterday" is not a time/);
    expect(parseTimeRange(undefined, undefined, NOW)).toEqual({ from: NOW - 6 * 3_600_000, to: NOW });
  });
});
