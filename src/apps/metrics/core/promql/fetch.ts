// Loads the data a query needs before evaluating it: one SampleQuerier.select
// per selector, over the whole time range every step of the query will look at
// (Prometheus's FindMinMaxTime / getTimeRangesForSelector), so evaluation then
// runs from memory.
import type { SampleQuerier } from "../types.ts";
import type { AtModifier, Expr, VectorSelector } from "./ast.ts";
import { sortByLabels, staleMask, type RawSeries } from "./series.ts";

export interface QueryTimes {
  /** the query's own start and end (for @ start() / @ end()), ms */
  start: number;
  end: number;
  lookback: number;
  /** the step of a subquery written without one */
  subqueryStep: number;
}

export type SelectorData = Map<VectorSelector, RawSeries[]>;

export function atTime(at: AtModifier, times: QueryTimes): number {
  if ("time" in at) return at.time;
  return at.preprocessor === "start" ? times.start : times.end;
}

interface Window {
  start: number;
  end: number;
  /** only the newest sample of the window is looked at (an instant selector evaluated at one time) */
  lastOnly?: boolean;
}

/** the [mint, maxt] each selector needs, walking subqueries' wider windows */
export function plan(expr: Expr, times: QueryTimes): Map<VectorSelector, Window> {
  const out = new Map<VectorSelector, Window>();
  const refWindow = (at: AtModifier | undefined, win: Window): Window => {
    if (!at) return win;
    const t = atTime(at, times);
    return { start: t, end: t };
  };
  // evaluated at one time only: an instant query, outside subqueries (which evaluate at many)
  const single = times.start === times.end;
  const walk = (e: Expr, win: Window, inSubquery: boolean): void => {
    switch (e.kind) {
      case "vectorSelector": {
        const ref = refWindow(e.at, win);
        const w: Window = { start: ref.start - e.offset - times.lookback + 1, end: ref.end - e.offset };
        if (single && !inSubquery) w.lastOnly = true;
        out.set(e, w);
        return;
      }
      case "matrixSelector": {
        const s = e.selector;
        const ref = refWindow(s.at, win);
        out.set(s, { start: ref.start - s.offset - e.range + 1, end: ref.end - s.offset });
        return;
      }
      case "subquery": {
        const ref = refWindow(e.at, win);
        walk(e.expr, { start: ref.start - e.offset - e.range, end: ref.end - e.offset }, true);
        return;
      }
      case "call":
        e.args.forEach((a) => walk(a, win, inSubquery));
        return;
      case "aggregate":
        walk(e.expr, win, inSubquery);
        if (e.param) walk(e.param, win, inSubquery);
        return;
      case "binary":
        walk(e.lhs, win, inSubquery);
        walk(e.rhs, win, inSubquery);
        return;
      case "unary":
      case "paren":
        walk(e.expr, win, inSubquery);
        return;
      default:
        return;
    }
  };
  walk(expr, { start: times.start, end: times.end }, false);
  return out;
}

/** selects every selector's series once; series come back sorted by labels, stale markers found */
export async function fetchData(q: SampleQuerier, expr: Expr, times: QueryTimes, skip?: ReadonlySet<VectorSelector>): Promise<SelectorData> {
  const windows = [...plan(expr, times)].filter(([sel]) => !skip?.has(sel));
  const results = await Promise.all(windows.map(([sel, w]) => q.select(sel.matchers, w.start, w.end, w.lastOnly ? { lastOnly: true } : undefined)));
  const data: SelectorData = new Map();
  windows.forEach(([sel], i) => {
    const found = results[i]!;
    // what carries offsets and stale marks already serves as it is (the store's do)
    if (found.every((s) => s.lo !== undefined && s.hi !== undefined && s.stale !== undefined)) {
      data.set(sel, q.sortsSeries ? (found as RawSeries[]) : sortByLabels(found as RawSeries[], (s) => s.labels));
      return;
    }
    const series: RawSeries[] = found.map((s) => {
      const lo = s.lo ?? 0;
      const hi = s.hi ?? s.t.length;
      const raw: RawSeries = { labels: s.labels, t: s.t, v: s.v, lo, hi };
      const stale = s.stale === undefined ? staleMask(s.v, lo, hi) : s.stale;
      if (stale) raw.stale = stale;
      return raw;
    });
    data.set(sel, q.sortsSeries ? series : sortByLabels(series, (s) => s.labels));
  });
  return data;
}
