// Regular-expression engines for user regexes (issue 16 #3): JavaScript's
// backtracking RegExp (the baseline, not linear), re2js (pure-JS RE2 port) and
// re2-wasm (Google's RE2 in WASM), plus src/lib/re2.ts as served (fast paths
// in front of re2js).
//   bun bench/regex.ts            (LINES=…, VALUES=… to change the size)
//   line filters: unanchored test over LINES ~200-byte log lines
//   matchers:     anchored ^(?s:re)$ test over VALUES label values
//   ReDoS:        (a|aa)+$ over 20 lines of "a"x40+"!" (JS RegExp is left out: it takes many seconds)
import { RE2 as Re2Wasm } from "re2-wasm";
import { RE2JS } from "re2js";
import { compileAnchored, compileUnanchored } from "../src/lib/re2.ts";
import { report, rng } from "./lib.ts";

const LINES = Number(process.env.LINES ?? 200_000);
const VALUES = Number(process.env.VALUES ?? 100_000);

function corpus(): string[] {
  const r = rng(7);
  const levels = ["info", "info", "info", "debug", "warn", "error"];
  const paths = ["/api/v1/orders", "/api/v1/users", "/healthz", "/static/app.js", "/api/v1/search"];
  const msgs = ["request served", "upstream timeout after retry", "cache miss", "Exception in handler: NullPointerException", "slow query"];
  const out: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)]!;
    let line = `ts=2026-11-26T03:${String(i % 60).padStart(2, "0")}:00.${String(i % 1000).padStart(3, "0")}Z level=${pick(levels)} caller=http.go:${Math.floor(r() * 900)} ` +
      `method=GET path=${pick(paths)} user=${Math.floor(r() * 100000)} status=${pick([200, 200, 200, 404, 500, 503])} duration=${(r() * 2).toFixed(3)}s msg="${pick(msgs)}"`;
    while (line.length < 200) line += " trace_id=" + Math.floor(r() * 1e12).toString(16);
    out.push(line.slice(0, 200 + Math.floor(r() * 20)));
  }
  return out;
}

function labelValues(): string[] {
  const r = rng(11);
  const kinds = ["api", "web", "worker", "db", "cache"];
  const envs = ["prod", "staging", "dev"];
  return Array.from({ length: VALUES }, (_, i) => `${kinds[Math.floor(r() * 5)]}-${envs[Math.floor(r() * 3)]}-${i}.eu-west-${1 + (i % 3)}.internal:${8000 + (i % 100)}`);
}

/** JS RegExp from an RE2 pattern that both spell alike, moving a leading (?i) to the flag */
function jsRegExp(source: string, anchored: boolean): RegExp {
  const ci = source.startsWith("(?i)");
  const body = ci ? source.slice(4) : source;
  return new RegExp(anchored ? `^(?:${body})$` : body, (ci ? "i" : "") + (anchored ? "s" : "") + "u");
}

type Tester = (s: string) => boolean;
function engines(source: string, anchored: boolean): Record<string, Tester> {
  const js = jsRegExp(source, anchored);
  const wrapped = anchored ? `^(?s:${source})$` : source;
  const r2 = RE2JS.compile(wrapped);
  const wasm = new Re2Wasm(wrapped, "u");
  const lib = anchored ? compileAnchored(source) : compileUnanchored(source);
  return {
    "js RegExp": (s) => js.test(s),
    re2js: (s) => r2.test(s),
    "re2-wasm": (s) => wasm.test(s),
    "lib/re2.ts": (s) => lib.test(s),
  };
}

function time(inputs: string[], test: Tester): { ms: number; hits: number } {
  let hits = 0;
  const t0 = performance.now();
  for (const s of inputs) if (test(s)) hits++;
  return { ms: performance.now() - t0, hits };
}

function run(title: string, inputs: string[], patterns: string[], anchored: boolean) {
  console.log(`\n${title} (${inputs.length} inputs; ms per pass, best of 3; hits)`);
  for (const p of patterns) {
    const row: string[] = [];
    for (const [name, test] of Object.entries(engines(p, anchored))) {
      let best = Infinity;
      let hits = 0;
      for (let i = 0; i < 3; i++) {
        const r = time(inputs, test);
        best = Math.min(best, r.ms);
        hits = r.hits;
      }
      row.push(`${name} ${best.toFixed(1)} (${hits})`);
      report.figure(`${title}: ${p}: ${name}`, best, "ms", null, { hits, inputs: inputs.length });
    }
    console.log(`  ${JSON.stringify(p).padEnd(28)} ${row.join("  |  ")}`);
  }
}

const lines = corpus();
run("line filters |~", lines, ["error|warn", "user=\\d+ .*timeout", "(?i)exception", "timeout", "status=5\\d\\d", "path=/api/v1/(orders|users) .*duration=1\\.\\d+s"], false);
run("label matchers =~", labelValues(), ["api-prod-.*", ".*-staging-.*", "(api|web)-prod-[0-9]+\\..*", "worker-dev-1.*|db-prod-2.*", "(?i)CACHE-.*"], true);

const bomb = Array.from({ length: 20 }, () => "a".repeat(40) + "!");
console.log("\nReDoS (a|aa)+$ over 20 lines of a x40 + ! (ms)");
for (const [name, test] of Object.entries(engines("(a|aa)+$", false))) {
  if (name === "js RegExp") {
    const short = Array.from({ length: 20 }, () => "a".repeat(25) + "!");
    const ms = time(short, test).ms;
    console.log(`  js RegExp (a x25 only: x40 takes seconds per line) ${ms.toFixed(1)}`);
    report.figure("ReDoS (a|aa)+$: js RegExp (a x25 only)", ms, "ms");
    continue;
  }
  const ms = time(bomb, test).ms;
  console.log(`  ${name} ${ms.toFixed(2)}`);
  report.figure(`ReDoS (a|aa)+$: ${name}`, ms, "ms");
}
report.save();
