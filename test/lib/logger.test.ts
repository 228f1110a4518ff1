// The logger writes a logfmt line field by field (issue 17: one line per
// request, on every request): the text must be the record's logfmt, whatever
// the fields — bound and per-call ones, undefined values, names that repeat
// or that sort first, values that need quotes.
import { describe, expect, it } from "vitest";
import { createLogger, toLogfmt, type LogFields } from "../../src/lib/logger.ts";

describe("logger: logfmt lines", () => {
  it("each line is the logfmt of {ts, level, msg, ...bound, ...fields}", () => {
    const at = new Date(Date.UTC(2026, 10, 26, 10, 0, 0, 123));
    const cases: Array<{ bound: LogFields; fields?: LogFields; msg: string }> = [
      { bound: {}, msg: "plain" },
      { bound: {}, msg: "two words", fields: { method: "GET", path: "/api/user", status: 200, duration_ms: 1.25, tenant: undefined } },
      { bound: { service: "logs" }, msg: "request", fields: { org: 1, user: "a=b", note: 'say "hi"', nl: "x\ny", tab: "a\tb", nul: "\u0000", empty: "" } },
      { bound: { service: "logs", gone: undefined }, msg: "x", fields: { service: "metrics" } },
      { bound: { service: "logs" }, msg: "x", fields: { msg: "replaced", level: "nope", ts: "then" } },
      { bound: { level: "bound" }, msg: "x", fields: { a: 1 } },
      { bound: { b: 1 }, msg: "x", fields: { "2": "two", "1": "one", z: { nested: [1, 2] }, err: new Error("boom here") } },
      { bound: { a: 1 }, msg: "x", fields: { big: 12345678901234567890n, t: true, n: null } },
    ];
    for (const { bound, fields, msg } of cases) {
      const lines: string[] = [];
      const logger = createLogger({ level: "debug", format: "logfmt", write: (l) => lines.push(l), now: () => at }).child(bound);
      logger.info(msg, fields);
      logger.error(msg, fields);
      expect(lines).toEqual([
        toLogfmt({ ts: at.toISOString(), level: "info", msg, ...bound, ...fields }),
        toLogfmt({ ts: at.toISOString(), level: "error", msg, ...bound, ...fields }),
      ]);
    }
  });
});
