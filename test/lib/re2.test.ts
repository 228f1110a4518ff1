// src/lib/re2.ts: the shortcuts that skip the engine agree with the engine,
// and Go's Expand / ReplaceAllString semantics. (HTTP behaviour is in
// test/logstore/regex.test.ts and test/metrics/promql/regex.test.ts.)
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compileAnchored, compileUnanchored, expandTemplate, replaceAll } from "../../src/lib/re2.ts";
import { fastTester, requiredLiteral } from "../../src/lib/re2-fast.ts";

const PATTERNS = [
  "", "foo", "foo|bar", "(foo|bar)", "(?:foo|bar)", "foo.*", ".*foo", ".*foo.*", "(foo|bar).*", ".*(foo|bar)", ".*(?:a|b).*",
  "(?i)foo", "(?i)FOO|bar", "(?i).*foo.*", "(?i)(k|s).*", "a\\.b", "a\\.b.*", "\\.*", "a|b.*", ".*a|b", "(a)|(b)", "foo\\|bar",
  "x-y", "a/b", "ünï|código", ".*\\*.*", "a.b",
  // not shortcuts, but prefiltered by a required literal
  "user=\\d+ .*timeout", "ab?cde", "abc*d", "ab{2}cdef", "x(abc|def)yz", "[abc]defg", "abc+de", "(?i)abcdef", "a\\.bcd.*e", "\\Qabc\\E",
  "abc|defgh", "[]x]yyy", "(a[)]b)ccc", "foo{bar", "😀😀x?",
];
const INPUTS = ["user=12 a timeout", "user= timeout", "acde", "abcde", "abde", "abd", "abbcdef", "abcdef", "xabcyz", "xdefyz", "adefg", "abccde", "ABCDEF",
  "a.bcde", "abc", "defgh", "]yyy", "a)bccc", "foo{bar", "😀😀", "😀", "😀😀x", "", "foo", "bar", "FOO", "xfoo", "foox", "xfoox", "a.b", "a.bc", "axb", "a", "b", "ab", "ba", "...", "\u212A", "\u017F", "s", "K",
  "foo|bar", "x-y", "a/b", "ünï", "código", "x*y", "line\nfoo", "foo\n", "\u212Aoo", "f\u212Ao"];

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
