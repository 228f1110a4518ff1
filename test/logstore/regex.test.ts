// LogQL regular expressions are RE2 (issue 16 #3): linear time whatever the
// pattern (the ReDoS of the review answers at once and the other store keeps
// answering), RE2's syntax where it differs from JavaScript's, and RE2's own
// messages for what it refuses.
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";
import { probeWhile } from "../helpers/while-busy.ts";
import { logClient, nsAgo } from "./helpers.ts";

const QR = "/svc/api/v1/query_range";
const BOMB = "a".repeat(40) + "!";

describe("log store: regular expressions are RE2 (linear time, RE2 syntax)", () => {
  const t = useServer();
  const logs = () => logClient(t.server.urls.logs!);
  const tenant = "rx";
  const q = (query: string) => logs().get(QR, tenant, { query, start: String(Math.floor(Date.now() / 1000) - 3600), end: String(Math.ceil(Date.now() / 1000) + 60), limit: "1000" });
  const lines = async (query: string) => {
    const r = await q(query);
    expect(r.status, r.text).toBe(200);
    return (r.body.data.result as Array<{ values: string[][] }>).flatMap((s) => s.values.map((v) => v[1]!)).sort();
  };
  const ready = () => fetch(`${t.server.urls.metrics}/ready`);

  it("{app=\"r\"} |~ \"(a|aa)+$\" over 20 lines of a x40 + \"!\" answers correctly while /ready on the metrics store answers", async () => {
    const values: Array<[string, string]> = Array.from({ length: 20 }, (_, i) => [nsAgo(60 - i), BOMB]);
    values.push([nsAgo(30), "aaaa"]);
    expect((await logs().push(tenant, [{ stream: { app: "r" }, values }])).status).toBe(204);
    const run = await probeWhile(() => lines('{app="r"} |~ "(a|aa)+$"'), ready);
    expect(run.probe).toBe(200);
    expect(run.attack).toEqual(["aaaa"]);
  }, 120_000);

  it("a catastrophic stream matcher {x=~\"(a|aa)+\"} over such label values answers correctly while /ready answers", async () => {
    const streams = Array.from({ length: 20 }, (_, i) => ({ stream: { app: "m", x: BOMB + i }, values: [[nsAgo(20), `line ${i}`]] as Array<[string, string]> }));
    streams.push({ stream: { app: "m", x: "aaa" }, values: [[nsAgo(20), "matched"]] });
    expect((await logs().push(tenant, streams)).status).toBe(204);
    const run = await probeWhile(() => lines('{app="m", x=~"(a|aa)+"}'), ready);
    expect(run.probe).toBe(200);
    expect(run.attack).toEqual(["matched"]);
  }, 120_000);

  it("RE2 syntax that JavaScript spells differently: \\z, (?P<name>), POSIX classes, (?i) mid-pattern, \\Q..\\E, ASCII \\s", async () => {
    const sample = ["GET /a 200", "x=ERROR here", "path .* literal", "tab\there", "nb\u00a0sp", "ends with abc", "abc then more", "\u212Aelvin"];
    expect((await logs().push(tenant, [{ stream: { app: "s" }, values: sample.map((l, i) => [nsAgo(50 - i), l]) }])).status).toBe(204);
    const sel = '{app="s"}';
    expect(await lines(`${sel} |~ "abc\\\\z"`)).toEqual(["ends with abc"]);
    expect(await lines(`${sel} |~ "(?P<method>GET) /a"`)).toEqual(["GET /a 200"]);
    expect(await lines(`${sel} |~ "^[[:upper:]]+ /[[:alpha:]] [[:digit:]]+$"`)).toEqual(["GET /a 200"]);
    expect(await lines(`${sel} |~ "x=(?i)error"`)).toEqual(["x=ERROR here"]);
    expect(await lines(`${sel} |~ "\\\\Q.*\\\\E"`)).toEqual(["path .* literal"]);
    // RE2's \\s is [\\t\\n\\f\\r ]: a no-break space is not one (JavaScript's \\s says it is)
    expect(await lines(`${sel} |~ "[a-z]\\\\s[a-z]"`)).toEqual(["abc then more", "ends with abc", "tab\there"]);
    // (?i) folds Unicode case: K KELVIN SIGN is k
    expect(await lines(`${sel} |~ "(?i)kelvin"`)).toEqual(["\u212Aelvin"]);
    expect(await lines(`${sel} != "GET" |~ "(?i)GET|ABC"`)).toEqual(["abc then more", "ends with abc"]);
  });

  it("| regexp extracts RE2 named groups ((?P<name>) and (?<name>)) as labels", async () => {
    const r = await q('{app="s"} | regexp "(?P<method>[A-Z]+) /(?<path>\\\\w+) (?P<code>\\\\d+)" | code="200"');
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.result).toHaveLength(1);
    expect(r.body.data.result[0].stream).toMatchObject({ app: "s", method: "GET", path: "a", code: "200" });
    expect(r.body.data.result[0].values.map((v: string[]) => v[1])).toEqual(["GET /a 200"]);
    const none = await q('{app="s"} | regexp "(a)"');
    expect([none.status, none.text.trim()]).toEqual([400, "parse error : at least one named capture must be supported"]);
  });

  it("a pattern RE2 refuses is a 400 with RE2's message (lookahead, unclosed group, bad repeat), never a 500", async () => {
    const cases: Array<[string, string]> = [
      ['{app="s"} |~ "(?=a)"', "parse error : error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
      ['{app="s"} |~ "(a"', "parse error : error parsing regexp: missing closing ): `(a`"],
      ['{app="s"} |~ "a**"', "parse error : error parsing regexp: invalid nested repetition operator: `**`"],
      ['{app="s", x=~"(?<=a)b"}', "parse error : error parsing regexp: invalid named capture: `(?<=a)b`"],
      ['{app="s", x=~"a)|(b"}', "parse error : error parsing regexp: unexpected ): `a)|(b`"],
      ['{app="s"} | regexp "(?P<n>a"', "parse error : error parsing regexp: missing closing ): `(?P<n>a`"],
    ];
    for (const [query, message] of cases) {
      const r = await q(query);
      expect({ query, status: r.status, text: r.text.trim() }).toEqual({ query, status: 400, text: message });
    }
  });
});
