// What evaluation of one expression over a run of steps needs: the steps, the
// query-wide times and the data fetched for every selector.
import type { QueryTimes, SelectorData } from "./fetch.ts";

export interface EvalContext {
  times: QueryTimes;
  data: SelectorData;
  /** first step's time, ms */
  start: number;
  /** ms between steps (1 for an instant evaluation) */
  interval: number;
  numSteps: number;
}

export const stepTime = (ctx: EvalContext, step: number): number => ctx.start + step * ctx.interval;
