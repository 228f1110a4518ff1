// PromQL regular expressions are RE2 (issue 16 #3): matchers and
// label_replace run in linear time whatever the pattern (the review's ReDoS
// answers at once while the log store keeps answering), with RE2's syntax and
// Prometheus's messages; the ruler's template functions match and
// reReplaceAll too.
import { describe, expect, it } from "vitest";
import { compileTemplate } from "../../src/apps/metrics/core/rules/templates.ts";
import { useServer } from "../helpers/server.ts";
import { probeWhile } from "../helpers/while-busy.ts";
import { metricsClient, type SeriesIn } from "./helpers.ts";

const BOMB = "a".repeat(40) + "!";

describe("PromQL regular expressions are RE2", () => {
  const ctx = useServer();
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const tenant = "rx";
  const now = Date.now();
  const ready = () => fetch(`${ctx.server.urls.logs}/ready`);
  const query = async (q: string) => {
    const r = await m().get("/prometheus/api/v1/query", tenant, { query: q, time: String(now / 1000) });
    return r;
  };
  const seed = async () => {
    const series: SeriesIn[] = Array.from({ length: 20 }, (_, i) => ({ labels: { __name__: "up", x: `${BOMB}${i}` }, samples: [[now - 10_000, 1]] as Array<[number, number]> }));
    series.push({ labels: { __name__: "up", x: "aaaa" }, samples: [[now - 10_000, 2]] });
    series.push({ labels: { __name__: "info", instance: "db-1:9100", path: "ends with abc" }, samples: [[now - 10_000, 3]] });
    const r = await m().push(tenant, series);
    expect(r.status, r.text).toBe(200);
  };

  it("up{x=~\"(a|aa)+\"} over 20 series of a x40 + \"!\" answers correctly while /ready on the log store answers", async () => {
    await seed();
    const run = await probeWhile(() => query('up{x=~"(a|aa)+"}'), ready);
    expect(run.probe).toBe(200);
    expect(run.attack.status, run.attack.text).toBe(200);
    expect(run.attack.body.data.result.map((s: { metric: Record<string, string> }) => s.metric.x)).toEqual(["aaaa"]);
    const negated = await query('count(up{x!~"(a|aa)+"})');
    expect(negated.body.data.result[0].value[1]).toBe("20");
  }, 120_000);

  it("label_replace with a catastrophic regex answers correctly while /ready answers", async () => {
    const run = await probeWhile(() => query('label_replace(up, "y", "$1", "x", "((a|aa)+)")'), ready);
    expect(run.probe).toBe(200);
    expect(run.attack.status, run.attack.text).toBe(200);
    const ys = run.attack.body.data.result.map((s: { metric: Record<string, string> }) => s.metric.y).filter(Boolean);
    expect(ys).toEqual(["aaaa"]);
  }, 120_000);

  it("RE2 syntax: (?P<name>) and ${name}, \\z, POSIX classes, (?i) mid-pattern, \\Q..\\E", async () => {
    const host = await query('label_replace(info, "host", "${h}-$2", "instance", "(?P<h>[[:alpha:]]+)-(\\\\d+):[[:digit:]]+\\\\z")');
    expect(host.status, host.text).toBe(200);
    expect(host.body.data.result[0].metric.host).toBe("db-1");
    const one = async (q: string) => (await query(q)).body.data.result.length;
    expect(await one('info{instance=~"DB(?i)-1:9100"}')).toBe(0);
    expect(await one('info{instance=~"db(?i)-1:9100"}')).toBe(1);
    expect(await one('info{instance=~"(?i)DB-1:9100"}')).toBe(1);
    expect(await one('info{path=~"\\\\Qends with\\\\E.*"}')).toBe(1);
    expect(await one('info{path=~"ends with abc\\\\z"}')).toBe(1);
  });

  it("a regex RE2 refuses is a 400 with Prometheus's message (label_replace: its 422 execution error), never a 500", async () => {
    const cases: Array<[string, string, number]> = [
      ['up{x=~"(a"}', "1:4: parse error: error parsing regexp: missing closing ): `(a`", 400],
      ['up{x=~"(?=a)"}', "1:4: parse error: error parsing regexp: invalid or unsupported Perl syntax: `(?=`", 400],
      ['up{x!~"a**"}', "1:4: parse error: error parsing regexp: invalid nested repetition operator: `**`", 400],
      // Prometheus compiles it while evaluating: an execution error, 422
      ['label_replace(up, "y", "$1", "x", "(?=a)")', "invalid regular expression in label_replace(): (?=a)", 422],
    ];
    for (const [q, message, status] of cases) {
      const r = await query(q);
      expect({ q, status: r.status, error: r.body?.error }).toEqual({ q, status, error: expect.stringContaining(message) });
    }
  });
});

describe("rule templates: match and reReplaceAll are RE2", () => {
  const expand = (text: string) => compileTemplate(text, "T").expand({ labels: { instance: "db-1:9100", x: BOMB }, value: 1 });

  it("RE2 syntax and Go's ReplaceAllString expansion", () => {
    expect(expand('{{ reReplaceAll "(?P<h>[[:alpha:]]+)-(\\\\d+):.*" "${h}/$2" $labels.instance }}')).toBe("db/1");
    expect(expand('{{ if match "^db(?i)-1" $labels.instance }}yes{{ end }}')).toBe("yes");
    expect(expand('{{ if match "(a|aa)+$" $labels.x }}yes{{ else }}no{{ end }}')).toBe("no");
    expect(expand('{{ reReplaceAll "(a|aa)+$" "z" $labels.x }}')).toBe(BOMB);
  });

  it("a regex RE2 refuses fails the expansion with Go's message", () => {
    expect(expand('{{ match "(?=a)" "a" }}')).toContain("error calling match: error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
    expect(expand('{{ reReplaceAll "(a" "" "a" }}')).toContain("error calling reReplaceAll: regexp: Compile(`(a`): error parsing regexp: missing closing ): `(a`");
  });
});
