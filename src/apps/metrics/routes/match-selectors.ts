// The match[] parameter of the Prometheus API (series, labels, label values,
// delete_series): a series selector alone, as Prometheus's
// ParseMetricSelector reads it, with Prometheus's messages.
import { matcherPredicate } from "../core/matchers.ts";
import { parsePromQL, PromQLParseError, selectorsOf } from "../core/promql/index.ts";
import type { Matcher } from "../core/types.ts";
import { invalidParam } from "./params.ts";

/** a match[] selector: one vector selector with at least one matcher that does not match the empty value */
export function parseSelector(text: string): Matcher[] {
  let matchers: Matcher[][];
  try {
    const expr = parsePromQL(text);
    // a series selector alone, as Prometheus's ParseMetricSelector: no function, range, offset or @ around it
    matchers = expr.kind === "vectorSelector" && expr.offset === 0 && expr.at === undefined ? selectorsOf(expr) : [];
  } catch (err) {
    if (err instanceof PromQLParseError) {
      if (err.message.includes("at least one non-empty matcher")) throw invalidParam("match[]", "match[] must contain at least one non-empty matcher");
      throw invalidParam("match[]", err.message);
    }
    throw err;
  }
  if (matchers.length !== 1) throw invalidParam("match[]", `1:1: parse error: expected a vector selector, got "${text}"`);
  if (matchers[0]!.every((m) => matcherPredicate(m)(""))) throw invalidParam("match[]", "match[] must contain at least one non-empty matcher");
  return matchers[0]!;
}
