// Byte prefilters of chunk scans (issue 18, filters; the same tests on the
// strings of lines read in memory): a |~ regex whose
// alternatives each need a literal keeps only lines holding one of them, and
// an equality label filter after | json / | logfmt keeps only lines holding
// the value or a backslash. These compare the answers of the scans over
// stored chunks and in memory with those of the same query behind a
// `line_format "{{__line__}}"` (which keeps every line and turns the
// prefilters off) on lines made to trip them: escaped JSON and logfmt
// values, the value in another field, numbers JSON spells otherwise, multi-byte UTF-8,
// parser errors, a stream label of the same name, !~ and (?i); and entries
// whose structured metadata gives the label (issue 21: the line need not
// hold its value), read by scans and by a query that reads everything here.
import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/apps/logstore/core/chunks.ts";
import { runLogQuery, runMetricQuery, stepsOf, type Series, type Source } from "../../src/apps/logstore/core/logql/evaluate.ts";
import { parseLogQL, type LogQuery, type MetricQuery } from "../../src/apps/logstore/core/logql/parse.ts";
import { openLogStore } from "../../src/apps/logstore/core/store.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";

const JSON_LINES = [
  '{"level":"error","msg":"x"}',
  '{"level":"\\u0065rror","msg":"escaped"}',
  '{"level":"err\\u006fr"}',
  '{"level":"info","msg":"error in another field"}',
  '{"level":"info"}',
  "not json but error",
  '{"level":"érror","msg":"ü"}',
  '{"level":"error😀"}',
  '{"lvl":{"level":"error"}}',
  '{"status":2e2}',
  '{"status":200.0,"level":"error"}',
  '{"status":"200"}',
  '{"big":1e999}',
  '{"big":"Infinity"}',
  '{"level":true}',
  '{"level":"error","duration_ms":123456}',
  '{"level":"warn","duration_ms":1234}',
  '{"level":"error"} trailing',
];
const LOGFMT_LINES = [
  "level=error msg=x",
  'level="err\\u006fr" msg=quoted',
  'level="error" msg="quoted plain"',
  "level=info msg=error",
  'msg="a \\"quoted\\" error" level=warn',
  'level="unterminated error',
  "level=érror",
  "duration=123456ms level=error",
  "duration=1234ms duration=99999ms",
  "Duration=123456ms",
  "level=ERROR",
  'level="error\\"" x=1',
];

const LOG_QUERIES = [
  '{job="p"} | json | level="error"',
  '{job="p"} | logfmt | level="error"',
  '{job="p"} | json | level="érror"',
  '{job="p"} | logfmt | level="érror"',
  '{job="p"} | json | level="error😀"',
  '{job="p"} | json | lvl_level="error"',
  '{job="p"} | json | status="200"',
  '{job="p"} | json | big="Infinity"',
  '{job="p"} | json | level="true"',
  '{job="p"} | json | level="error" and msg="x"',
  '{job="p"} | json | level="error" or level="info"',
  '{job="p"} | json | level!="error"',
  '{job="p"} | json | __error__="JSONParserErr"',
  '{job="p"} | json | __error__=""',
  '{job="p"} | logfmt | __error__="LogfmtParserErr"',
  '{job="p"} | json | label_format level="error" | level="error"',
  '{job="p"} | json | label_format level=msg | level="x"',
  '{job="p"} | line_format "{{.app}}" | json | level="error"',
  '{job="p"} | json | level="error" | line_format "{{.level}} {{.msg}}"',
  '{job="p"} | regexp "level=(?P<level>\\\\S+)" | level="error"',
  '{job="p"} | level="error" | json',
  '{job="p"} | logfmt | json | level="error"',
  '{job="p"} |~ "duration=[0-9]{5,}ms|\\"duration_ms\\":[0-9]{5,}"',
  '{job="p"} !~ "duration=[0-9]{5,}ms|\\"duration_ms\\":[0-9]{5,}"',
  '{job="p"} |~ "(?i)duration=[0-9]{5,}ms|error"',
  '{job="p"} |~ "err(or|x)|warn\\\\b"',
  '{job="p"} |~ "érror|😀"',
  '{job="p"} |~ "level=\\\\S+|msg"',
  '{job="p"} |= "level" |~ "error\\\\b|info$" != "msg"',
  '{job="p"} |~ "(?s)level=.rror"',
  '{job="p"} !~ "(?s)level=.rror"',
  '{job="p"} | traceID="abc"',
  '{job="p"} | json | traceID="abc"',
  '{job="p"} | logfmt | trace_id="abc" or level="error"',
  '{job="p"} | json | level_extracted="debug"',
  '{job="p"} | json | traceID="abc" | drop traceID',
];

/** lines of a stream with structured metadata: the value is in the metadata, not in the line */
const METADATA_ENTRIES: Array<[string, Record<string, string> | undefined]> = [
  ['{"msg":"no trace here"}', { traceID: "abc" }],
  ["msg=plain", { "trace.id": "abc" }],
  ['{"traceID":"xyz"}', { traceID: "abc" }],
  ['{"msg":"abc"}', undefined],
  ["level=info", { level: "debug" }],
  ['{"level":"error"}', { traceID: "def" }],
];

const METRIC_QUERIES = [
  'sum by (level) (count_over_time({job="p"} | json | level="error" [1s]))',
  'count_over_time({job="p"} | logfmt | level="error" [1s])',
  'sum by (app) (bytes_over_time({job="p"} |~ "duration=[0-9]{5,}ms|\\"duration_ms\\":[0-9]{5,}" [1s]))',
  'sum(count_over_time({job="p"} !~ "err(or|x)|warn" [1s]))',
  'sum by (traceID) (count_over_time({job="p"} | json | traceID="abc" [1s]))',
];

const plain = (series: Series[]) => series.map((s) => ({ metric: s.metric, points: [...s.points].sort((a, b) => a[0] - b[0]) }));

describe("log store: byte prefilters of chunk scans give the answers of the pipeline", () => {
  it("regex literal sets and label filters after json/logfmt: log and metric queries over stored chunks, tricky lines", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 400 });
      const base = BigInt(now) * 1_000_000n;
      const streams: Array<[Record<string, string>, string[]]> = [
        [{ job: "p", app: "json" }, JSON_LINES],
        [{ job: "p", app: "logfmt" }, LOGFMT_LINES],
        // the stream's own label: the parsers do not replace it, so every line has it whatever its bytes
        [{ job: "p", app: "stream", level: "error" }, ['{"level":"info"}', "plain line", "level=warn"]],
        [{ job: "p", app: "mixed" }, [...JSON_LINES, ...LOGFMT_LINES].reverse()],
      ];
      let k = 0;
      for (const [labels, lines] of streams) {
        const stream = await store.stream("t", labels);
        const entries: Entry[] = lines.map((line) => ({ ts: base + BigInt(k++) * 1_000_000n, line }));
        for (const e of entries) store.append("t", [{ stream, entries: [e] }]);
      }
      const withMetadata: Array<Record<string, string>> = [{ job: "p", app: "meta" }, { job: "p", app: "meta", level: "warn" }];
      for (const labels of withMetadata) {
        const stream = await store.stream("t", labels);
        for (const [line, metadata] of METADATA_ENTRIES) store.append("t", [{ stream, entries: [{ ts: base + BigInt(k++) * 1_000_000n, line, metadata }] }]);
      }
      const src: Source = { store, tenants: ["t"] };
      const to = base + BigInt(k + 1) * 1_000_000n;
      const steps = stepsOf(now, now + (k + 1), 1);
      // the same query behind a line_format that keeps the line: no stage before it is prefiltered, here or in a scan
      const unfiltered = (text: string) => text.replace('{job="p"}', '{job="p"} | line_format "{{__line__}}"');
      const check = async (when: string) => {
        let nonEmpty = 0;
        for (const text of LOG_QUERIES) {
          const got = await runLogQuery(src, parseLogQL(text) as LogQuery, base, to, 1000, true);
          const want = await runLogQuery(src, parseLogQL(unfiltered(text)) as LogQuery, base, to, 1000, true);
          expect({ when, text, got }).toEqual({ when, text, got: want });
          // a query without its text (built by hand) reads every run here, through the prefilters on strings
          const here = await runLogQuery(src, { ...(parseLogQL(text) as LogQuery) }, base, to, 1000, true);
          expect({ when, text, here }).toEqual({ when, text, here: want });
          if (got.length) nonEmpty++;
        }
        expect(nonEmpty).toBeGreaterThan(LOG_QUERIES.length - 3);
        for (const text of METRIC_QUERIES) {
          const got = plain(await runMetricQuery(src, parseLogQL(text) as MetricQuery, steps));
          const want = plain(await runMetricQuery(src, parseLogQL(unfiltered(text)) as MetricQuery, steps));
          expect({ when, text, got }).toEqual({ when, text, got: want });
          expect(got.length).toBeGreaterThan(0);
        }
      };
      // read here (heads and chunks being written), then as stored chunks (scan tasks)
      await check("in memory");
      await store.flush(true);
      expect(store.find("t", { job: "p", app: "json" })!.chunks.length).toBeGreaterThan(1);
      await check("stored chunks");
      await store.close();
    } finally {
      await db.close();
    }
  }, 120_000);
});
