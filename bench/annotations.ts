// Annotation queries over 1,000,000 annotations, against the compiled binary
// (issue 5: a time window and a tag answer in milliseconds, not seconds).
// The rows are bulk-loaded into the data dir first (through the same
// migrations), then each query is timed over HTTP one request at a time.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/db/open.ts";
import { createLogger } from "../src/lib/logger.ts";
import { median, report, startBinary, stopBinary } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const ROWS = Number(process.env.ANNOTATIONS ?? 1_000_000);
const REQUESTS = 100;
const auth = { Authorization: `Basic ${btoa("admin:admin")}` };
const T0 = 1_700_000_000_000;
const STEP = 30_000; // one annotation every 30 s: a million cover about a year

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-ann-"));
const dataDir = join(dir, "data");
const args = ["serve", "--data-dir", dataDir, "--http-port", "0", "--no-logs", "--no-metrics", "--log-level", "warn"];
try {
  await stopBinary((await startBinary(binary, args, 1)).child); // first boot makes the data dir

  const started = performance.now();
  const db = await openDatabase({ dataDir, logger: createLogger({ level: "warn", format: "logfmt", write: () => {} }) });
  // every 10th on one of 100 dashboards, every 50th a one-hour region; tags: 1000 hosts, two envs, a rare "deploy"
  await db.pg.exec(`
    alter table annotations disable trigger annotations_tag_counts;
    insert into annotations (org_id, dashboard_uid, epoch, epoch_end, text, tags, created, updated)
      select 1, null, ${T0} + i * ${STEP}::bigint, ${T0} + i * ${STEP}::bigint + case when i % 50 = 0 then 3600000 else 0 end,
             'annotation ' || i,
             array['host:h' || (i % 1000), case when i % 3 = 0 then 'env:prod' else 'env:dev' end]
               || case when i % 997 = 0 then array['deploy'] else array[]::text[] end,
             ${T0}, ${T0}
        from generate_series(1, ${ROWS}) i;
    insert into annotation_tags (org_id, tag, count) select org_id, t, count(*) from annotations, unnest(tags) t group by 1, 2;
    alter table annotations enable trigger annotations_tag_counts;
    analyze annotations;`);
  await db.close();
  console.log(`loaded ${ROWS} annotations in ${Math.round(performance.now() - started)} ms`);
  report.figure(`bulk load of ${ROWS} annotations`, performance.now() - started, "ms");

  const server = await startBinary(binary, args, 1);
  try {
    const base = server.urls.dashboard!;
    const mid = T0 + Math.floor(ROWS / 2) * STEP;
    const day = 86_400_000;
    const queries: Array<[string, string]> = [
      ["window (1 day) + rare tag", `from=${mid}&to=${mid + day}&tags=deploy`],
      ["window (1 day) + common tag", `from=${mid}&to=${mid + day}&tags=env:prod`],
      ["window (1 day)", `from=${mid}&to=${mid + day}`],
      ["window (60 days) + rare tag", `from=${mid}&to=${mid + 60 * day}&tags=deploy`],
      ["two tags, matchAny", `tags=deploy&tags=host:h7&matchAny=true`],
      ["no filter (newest 100)", ""],
    ];
    const time = async (path: string) => {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        const res = await fetch(base + path, { headers: auth });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      return { median: median(times), p99: times[Math.floor(times.length * 0.99) - 1]! };
    };
    const health = await time("/api/health");
    const line = (name: string, m: { median: number; p99: number }) => {
      report.figure(`${name} (median)`, m.median, "ms", null, { p99Ms: m.p99 });
      return `${name.padEnd(46)} median ${m.median.toFixed(1).padStart(6)} ms  p99 ${m.p99.toFixed(1).padStart(6)} ms`;
    };
    console.log(line("GET /api/health", health));
    for (const [name, q] of queries) console.log(line(`annotations: ${name}`, await time(`/api/annotations?${q}`)));
    console.log(line("annotations/tags?tag=env", await time("/api/annotations/tags?tag=env")));
  } finally {
    await stopBinary(server.child);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
report.save();
