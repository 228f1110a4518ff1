// src/lib/re2.ts: the shortcuts that skip the engine agree with the engine,
// and Go's Expand / ReplaceAllString semantics. (HTTP behaviour is in
// test/logstore/regex.test.ts and test/metrics/promql/regex.test.ts.)
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compileAnchored, compileUnanchored, expandTemplate, replaceAll } from "../../src/lib/re2.ts";
import { fastTester, literalBranches, requiredLiteral, stickyBranch } from "../../src/lib/re2-fast.ts";

const PATTERNS = [
  "", "foo", "foo|bar", "(foo|bar)", "(?:foo|bar)", "foo.*", ".*foo", ".*foo.*", "(foo|bar).*", ".*(foo|bar)", ".*(?:a|b).*",
  "(?i)foo", "(?i)FOO|bar", "(?i).*foo.*", "(?i)(k|s).*", "a\\.b", "a\\.b.*", "\\.*", "a|b.*", ".*a|b", "(a)|(b)", "foo\\|bar",
  "x-y", "a/b", "ünï|código", ".*\\*.*", "a.b",
  // not shortcuts, but prefiltered by a required literal
  "user=\\d+ .*timeout", "ab?cde", "abc*d", "ab{2}cdef", "x(abc|def)yz", "[abc]defg", "abc+de", "(?i)abcdef", "a\\.bcd.*e", "\\Qabc\\E",
  "abc|defgh", "[]x]yyy", "(a[)]b)ccc", "foo{bar", "😀😀x?",
  // alternatives each with a literal (tried where the literal occurs when it opens the alternative)
  'duration=[0-9]{5,}ms|"duration_ms":[0-9]{5,}', "abc\\b|xyz$", "foo\\d+|ba+r", "aaa+b", "abc|(de|fg)hij", "user|x.*timeout", "fo+o|abc?d",
  "abc\\B.|z(abc)", "😀😀x|ünï", "abc^|^abc", "(?s)abc.x|def", "a\\.b|[x-z]cde",
  // alternatives run as sticky JavaScript RegExps, and ones refused
  "abc[0-9]{2,3}x", "abc[a-cx-z\\d]+5", "abc5*5", "abc\\d?\\.d|xyz[\\.-]{2}", "duration=\\d{5}", "abc[\\\\d]", "abc{2", "abc[^x]y", "😀😀x{2}|ünï+",
  "abc[-x]", "a=b\\\\c|user=[0-9]+[0-9]+x", "abc\\w", "abc.d",
];
const INPUTS = ["user=12 a timeout", "user= timeout", "acde", "abcde", "abde", "abd", "abbcdef", "abcdef", "xabcyz", "xdefyz", "adefg", "abccde", "ABCDEF",
  "a.bcde", "abc", "defgh", "]yyy", "a)bccc", "foo{bar", "😀😀", "😀", "😀😀x", "", "foo", "bar", "FOO", "xfoo", "foox", "xfoox", "a.b", "a.bc", "axb", "a", "b", "ab", "ba", "...", "\u212A", "\u017F", "s", "K",
  "foo|bar", "x-y", "a/b", "ünï", "código", "x*y", "line\nfoo", "foo\n", "\u212Aoo", "f\u212Ao",
  "duration=12345ms", "duration=1234ms duration=123456ms", '{"duration_ms":99999}', '"duration_ms":9999', "abcd", "abc d", "xyz", "xyzz", "foo12", "fooo",
  "baaar", "aa".repeat(30) + "b", "aa".repeat(30) + "c", "dehij", "fghij", "userx timeout", "abd", "foood", "abcDx", "abcd.", "zabc", "abc\nx", "abc", "a.b", "xcde", "😀😀x"];

describe("re2 shortcuts agree with the engine", () => {
  for (const anchored of [true, false]) {
    it(`${anchored ? "anchored ^(?s:re)$" : "unanchored"}: every shortcut pattern x input`, () => {
      let shortcuts = 0;
      for (const p of PATTERNS) {
        const engine = RE2JS.compile(anchored ? `^(?s:${p})$` : p);
        const fast = fastTester(p, anchored);
        if (fast) shortcuts++;
        const lib = anchored ? compileAnchored(p) : compileUnanchored(p);
        for (const s of INPUTS) {
          const want = engine.test(s);
          expect({ p, s, got: lib.test(s) }).toEqual({ p, s, got: want });
          if (fast) expect({ p, s, fast: fast(s) }).toEqual({ p, s, fast: want });
        }
      }
      expect(shortcuts).toBeGreaterThan(15);
    });
  }
});

describe("required literals (prefilter)", () => {
  it("are the longest run every match needs; none where unsure", () => {
    const cases: Array<[string, string | undefined]> = [
      ["user=\\d+ .*timeout", "timeout"], ["ab?cde", "cde"], ["abcd*e", "abc"], ["x(abc|def)yz", undefined], ["abc|defgh", undefined],
      ["(?i)abcdef", undefined], ["\\Qabcdef\\E", undefined], ["status=5\\d\\d", "status=5"], ["(api|web)-prod-[0-9]+\\..*", "-prod-"],
      ["abcd{2}", "abc"], ["ab\\.cd", "ab.cd"], ["[a-z]+:abc", ":abc"],
    ];
    for (const [p, want] of cases) expect({ p, got: requiredLiteral(p) }).toEqual({ p, got: want });
  });
});

describe("literal branches (prefilter by a set of literals)", () => {
  it("give one literal per top-level alternative; the ones that open it are marked prefix; none where unsure", () => {
    const lits = (p: string) => literalBranches(p)?.map((b) => `${b.prefix ? "^" : ""}${b.literal}`);
    expect(lits('duration=[0-9]{5,}ms|"duration_ms":[0-9]{5,}')).toEqual(["^duration=", '^"duration_ms":']);
    expect(lits("abc|defgh")).toEqual(["^abc", "^defgh"]);
    expect(lits("x(abc|def)yz|[a-z]+:abcd")).toEqual(undefined);
    expect(lits("(abc|def)yzw|[a-z]+:abcd")).toEqual(["yzw", ":abcd"]);
    expect(lits("abc?d|\\d+timeout")).toEqual(undefined);
    expect(lits("abcd?e|\\d+timeout")).toEqual(["^abc", "timeout"]);
    expect(lits("a\\.bc|x")).toEqual(undefined);
    expect(lits("user=\\d+ .*timeout")).toEqual(["^user="]);
    expect(lits("abc|")).toEqual(undefined);
    // flags: (?i) makes a byte search inexact, and a leading flag group spans every alternative
    expect(lits("(?i)error|warning")).toEqual(undefined);
    expect(lits("(?s)abc.x|def")).toEqual(undefined);
    expect(lits("err(?i:or)|warning")).toEqual(undefined);
  });

  it("alternatives as sticky JavaScript RegExps only where both engines agree and one quantifier varies", () => {
    const taken = ['duration=[0-9]{5,}ms', '"duration_ms":[0-9]{5,}', "abc[0-9]{2,3}x", "abc[a-cx-z\\d]+5", "abc5*5", "abc\\d?\\.d", "a=b\\\\c", "😀😀x", "abc[\\.-z]"];
    const refused = ["abc[^x]y", "abc{2", "abc\\w", "abc.d", "😀{2}", "user=[0-9]+[0-9]+x", "abc[\\\\d]", "abc[-x]", "abc+?", "abc(d)", "abc$", "ab\\x41"];
    for (const b of taken) expect({ b, sticky: stickyBranch(b) !== undefined }).toEqual({ b, sticky: true });
    for (const b of refused) expect({ b, sticky: stickyBranch(b) }).toEqual({ b, sticky: undefined });
  });

  it("every input an unanchored pattern matches holds one of its literals", () => {
    for (const p of PATTERNS) {
      const branches = literalBranches(p);
      if (!branches) continue;
      const engine = RE2JS.compile(p);
      for (const s of INPUTS) if (engine.test(s)) expect({ p, s, has: branches.some((b) => s.includes(b.literal)) }).toEqual({ p, s, has: true });
    }
  });
});

describe("Go's Regexp.Expand and ReplaceAllString", () => {
  it("expands $1, ${1}, $name, ${name}, $$ and treats $1x as the group named 1x", () => {
    const m = compileAnchored("(?P<host>[^:]+):(\\d+)").exec("db:5432")!;
    expect(expandTemplate("$1-$2|${host}|$host|$$|${2}x|$2x|$9|$|${", m)).toBe("db-5432|db|db|$|5432x|||$|${");
  });

  it("replaces every non-overlapping match, empty matches as Go does", () => {
    expect(replaceAll(compileUnanchored("a(x*)b"), "-ab-axxb-", "${1}W")).toBe("-W-xxW-");
    expect(replaceAll(compileUnanchored("x*"), "abc", "-")).toBe("-a-b-c-");
    expect(replaceAll(compileUnanchored("a*"), "baaac", "X")).toBe("XbXcX");
    expect(replaceAll(compileUnanchored("(?P<w>\\w+)"), "hi there", "<$w>")).toBe("<hi> <there>");
  });
});
