// LBAC on LogQL, as pure functions: a team's rule is a stream selector; the
// rules a caller is subject to are OR-ed ("at least one of the team's rules",
// the real product's Team LBAC), folded into one set of matchers, and those
// matchers are added to EVERY stream selector of a query (metric queries and
// binary operations hold several). Each selector is rebuilt from its decoded
// matchers plus the rule's, replacing exactly its span; the result is parsed
// again and checked, so a query can never come out with an unrestricted
// selector. OR that one selector cannot say exactly is refused (fail closed).
import { badRequest, forbidden } from "../../../../lib/errors.ts";
import { compileAnchored } from "../../../../lib/re2.ts";
import {
  matcherKey, matchersOf, parseLogQLTree, renderSelector, selectorNodes, type LabelMatcher,
} from "./logql-matchers.ts";

/**
 * The matchers of one LBAC rule: a bare stream selector (`{env="prod",
 * team=~"a|b"}`), no pipeline, regular expressions that compile. `what`
 * names the rule in messages (e.g. `rules[0].rules[1]`).
 */
export function parseRule(text: string, what = "rule"): LabelMatcher[] {
  const invalid = (why: string) => badRequest(`${what}: ${JSON.stringify(text)} is not a valid label selector: ${why}`);
  let tree;
  try {
    tree = parseLogQLTree(text);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  const expr = tree.topNode.getChild("Expr")?.firstChild;
  const selector = expr?.name === "LogExpr" ? expr.getChild("Selector") : null;
  if (!expr || !selector || expr.getChild("PipelineExpr") || selector.from !== expr.from || selector.to !== expr.to) {
    throw invalid("only a stream selector {label=\"value\", ...} is allowed, without pipeline or aggregation");
  }
  let matchers: LabelMatcher[];
  try {
    matchers = matchersOf(text, selector);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  for (const m of matchers) {
    if (m.op !== "=~" && m.op !== "!~") continue;
    try {
      // RE2, as the log store compiles it; checked alone, so it is one whole group wherever it is placed
      compileAnchored(m.value);
    } catch (err) {
      throw invalid(`invalid regular expression in ${m.name}${m.op}: ${(err as Error).message}`);
    }
  }
  return matchers;
}

/** Go's regexp.QuoteMeta: a literal as a regular expression */
export const quoteMeta = (s: string) => s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");

const unique = (ms: readonly LabelMatcher[]) => [...new Map(ms.map((m) => [matcherKey(m), m])).values()];

/**
 * One set of matchers selecting exactly the streams at least one rule selects.
 * Rules implied by a broader one are dropped (A or (A and B) = A); the rest
 * must share every matcher but one, on the same label, each `=` or `=~`,
 * which become one `=~` alternation. Anything else cannot be said by one
 * selector: 403 saying why (never a broader selector than the rules allow).
 */
export function combineRules(rules: readonly (readonly LabelMatcher[])[]): LabelMatcher[] {
  if (!rules.length) throw new Error("combineRules needs at least one rule");
  const sets = rules.map((r) => unique(r));
  const keys = sets.map((r) => new Set(r.map(matcherKey)));
  const kept: number[] = [];
  for (let i = 0; i < sets.length; i++) {
    const implied = sets.some((_, j) => {
      if (j === i || keys[j]!.size > keys[i]!.size) return false;
      const subset = [...keys[j]!].every((k) => keys[i]!.has(k));
      // equal rules: keep the first only
      return subset && (keys[j]!.size < keys[i]!.size || j < i);
    });
    if (!implied) kept.push(i);
  }
  if (kept.length === 1) return sets[kept[0]!]!;

  const common = sets[kept[0]!]!.filter((m) => kept.every((i) => keys[i]!.has(matcherKey(m))));
  const commonKeys = new Set(common.map(matcherKey));
  const rests = kept.map((i) => sets[i]!.filter((m) => !commonKeys.has(matcherKey(m))));
  const labels = [...new Set(rests.flat().map((m) => m.name))];
  const refuse = (why: string) =>
    forbidden(`the LBAC rules of your teams on this data source cannot be combined into one stream selector: ${why}; ask an administrator to merge them`, {
      messageId: "lbac.rulesNotCombinable",
    });
  if (labels.length > 1) throw refuse(`the rules differ in more than one label (${labels.join(", ")})`);
  const label = labels[0]!;
  if (rests.some((r) => r.length > 1)) throw refuse(`a rule differs from the others by several matchers on label ${label}`);
  const negative = rests.flat().find((m) => m.op === "!=" || m.op === "!~");
  if (negative) throw refuse(`the rules differ by a negative matcher (${negative.name}${negative.op})`);
  const alternatives = rests.map(([m]) => (m!.op === "=" ? quoteMeta(m!.value) : `(?:${m!.value})`));
  return [...common, { name: label, op: "=~", value: alternatives.join("|") }];
}

/**
 * `query` (a log or metric query, or a bare selector as in match[]) with
 * `restriction` added to each of its stream selectors. A query the grammar
 * rejects is a 400 (its parse error); a blank one becomes the restriction's
 * own selector (a labels or series request that names no selector).
 */
export function injectMatchers(query: string, restriction: readonly LabelMatcher[]): string {
  if (!restriction.length) throw new Error("injectMatchers needs at least one matcher");
  if (!query.trim()) return renderSelector(restriction);
  const tree = parseLogQLTree(query);
  const selectors = selectorNodes(tree);
  let out = "";
  let at = 0;
  for (const s of selectors) {
    out += query.slice(at, s.from) + renderSelector([...matchersOf(query, s), ...restriction]);
    at = s.to;
  }
  out += query.slice(at);
  verify(out, selectors.length, restriction);
  return out;
}

/** the rewritten query holds as many selectors as the original, each carrying every restriction matcher */
function verify(rewritten: string, count: number, restriction: readonly LabelMatcher[]): void {
  const fail = () => forbidden("the query could not be restricted by the LBAC rules of your teams", { messageId: "lbac.rewriteFailed" });
  let selectors;
  try {
    const tree = parseLogQLTree(rewritten);
    selectors = selectorNodes(tree).map((s) => new Set(matchersOf(rewritten, s).map(matcherKey)));
  } catch {
    throw fail();
  }
  if (selectors.length !== count) throw fail();
  const wanted = restriction.map(matcherKey);
  if (!selectors.every((have) => wanted.every((k) => have.has(k)))) throw fail();
}
