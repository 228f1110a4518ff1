// Type checking of a parsed expression, in the order and words of Prometheus's
// parser.checkAST (promql/parser/parse.go); the first error found is thrown.
import type { Expr, ValueType, VectorSelector } from "./ast.ts";
import { documentedType, FUNCTIONS, isComparison, isSetOp, typeOf } from "./ast.ts";
import { PromQLParseError, quoteString } from "./parse-error.ts";
import { matcherPredicate } from "../matchers.ts";

export function checkExpr(query: string, root: Expr): void {
  const fail = (at: number, reason: string): never => {
    throw new PromQLParseError(query, at, reason);
  };

  const expectType = (e: Expr, want: ValueType, context: string) => {
    const got = check(e);
    if (got !== want) fail(e.span.start, `expected type ${documentedType(want)} in ${context}, got ${documentedType(got)}`);
  };

  const checkSelector = (vs: VectorSelector) => {
    if (vs.name !== undefined) {
      for (const m of vs.matchers.slice(0, -1)) {
        if (m.name === "__name__") fail(vs.span.start, `metric name must not be set twice: ${quoteString(vs.name)} or ${quoteString(m.value)}`);
      }
      return;
    }
    if (!vs.matchers.some((m) => !matcherPredicate(m)(""))) fail(vs.span.start, "vector selector must contain at least one non-empty matcher");
  };

  function check(e: Expr): ValueType {
    switch (e.kind) {
      case "number":
      case "string":
        break;
      case "vectorSelector":
        checkSelector(e);
        break;
      case "matrixSelector":
        checkSelector(e.selector);
        break;
      case "paren":
        check(e.expr);
        break;
      case "subquery": {
        const t = check(e.expr);
        if (t !== "vector") fail(e.span.start, `subquery is only allowed on instant vector, got ${t} instead`);
        break;
      }
      case "unary": {
        const t = check(e.expr);
        if (t !== "scalar" && t !== "vector") {
          fail(e.span.start, `unary expression only allowed on expressions of type scalar or instant vector, got ${quoteString(documentedType(t))}`);
        }
        break;
      }
      case "aggregate":
        expectType(e.expr, "vector", "aggregation expression");
        if (e.op === "topk" || e.op === "bottomk" || e.op === "quantile") expectType(e.param!, "scalar", "aggregation parameter");
        if (e.op === "count_values") expectType(e.param!, "string", "aggregation parameter");
        break;
      case "call": {
        const sig = FUNCTIONS[e.func]!;
        const n = sig.args.length;
        if (sig.variadic === 0) {
          if (n !== e.args.length) fail(e.span.start, `expected ${n} argument(s) in call to ${quoteString(e.func)}, got ${e.args.length}`);
        } else {
          const min = n - 1;
          if (min > e.args.length) {
            fail(e.span.start, `expected at least ${min} argument(s) in call to ${quoteString(e.func)}, got ${e.args.length}`);
          } else if (sig.variadic > 0 && min + sig.variadic < e.args.length) {
            fail(e.span.start, `expected at most ${min + sig.variadic} argument(s) in call to ${quoteString(e.func)}, got ${e.args.length}`);
          }
        }
        e.args.forEach((arg, i) => {
          if (i >= n) {
            if (sig.variadic === 0) return;
            i = n - 1;
          }
          const want = sig.args[i]!;
          const got = check(arg);
          if (got !== want) {
            fail(arg.span.start, `expected type ${documentedType(want)} in call to function ${quoteString(e.func)}, got ${documentedType(got)}`);
          }
        });
        break;
      }
      case "binary": {
        const lt = check(e.lhs);
        const rt = check(e.rhs);
        if (e.returnBool && !isComparison(e.op)) fail(e.opSpan.start, "bool modifier can only be used on comparison operators");
        if (isComparison(e.op) && !e.returnBool && lt === "scalar" && rt === "scalar") {
          fail(e.opSpan.start, "comparisons between scalars must use BOOL modifier");
        }
        const m = e.matching;
        if (m && m.on) {
          for (const l of m.labels) {
            if (m.include.includes(l)) fail(e.opSpan.start, `label ${quoteString(l)} must not occur in ON and GROUP clause at once`);
          }
        }
        if (lt !== "scalar" && lt !== "vector") fail(e.lhs.span.start, "binary expression must contain only scalar and instant vector types");
        if (rt !== "scalar" && rt !== "vector") fail(e.rhs.span.start, "binary expression must contain only scalar and instant vector types");
        if ((lt !== "vector" || rt !== "vector") && m) {
          if (m.labels.length > 0) fail(e.span.start, "vector matching only allowed between instant vectors");
          delete e.matching;
        } else if (m && isSetOp(e.op)) {
          if (m.card === "one-to-many" || m.card === "many-to-one") fail(e.span.start, `no grouping allowed for ${quoteString(e.op)} operation`);
        }
        if ((lt === "scalar" || rt === "scalar") && isSetOp(e.op)) {
          fail(e.span.start, `set operator ${quoteString(e.op)} not allowed in binary scalar expression`);
        }
        break;
      }
    }
    return typeOf(e);
  }

  check(root);
}
