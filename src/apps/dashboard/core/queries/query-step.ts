// How the real product picks the step of a range query and fills the
// $__interval family of variables, so a dashboard asks the stores the same
// questions here as there (Grafana's gtime, promlib and loki step code).
import { badRequest } from "../../../../lib/errors.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** gtime.RoundInterval: the "nice" interval at or below a calculated one, in ms */
export function roundInterval(ms: number): number {
  const table: Array<[number, number]> = [
    [10, 1], [15, 10], [35, 20], [75, 50], [150, 100], [350, 200], [750, 500], [1500, 1000], [3500, 2000],
    [7500, 5000], [12500, 10_000], [17500, 15_000], [25_000, 20_000], [45_000, 30_000], [90_000, MINUTE],
    [210_000, 2 * MINUTE], [450_000, 5 * MINUTE], [750_000, 10 * MINUTE], [1_050_000, 15 * MINUTE],
    [1_500_000, 20 * MINUTE], [2_700_000, 30 * MINUTE], [5_400_000, HOUR], [9_000_000, 2 * HOUR],
    [16_200_000, 3 * HOUR], [32_400_000, 6 * HOUR], [86_400_000, 12 * HOUR], [172_800_000, DAY],
    [604_800_000, DAY], [1_814_400_000, 7 * DAY],
  ];
  for (const [limit, value] of table) if (ms <= limit) return value;
  return ms < 3_628_800_000 ? 30 * DAY : 365 * DAY;
}

/** gtime.FormatInterval: the largest whole unit (1y, 2d, 5m, 30s, 500ms) */
export function formatInterval(ms: number): string {
  const units: Array<[string, number]> = [["y", 365 * DAY], ["d", DAY], ["h", HOUR], ["m", MINUTE], ["s", SECOND], ["ms", 1]];
  for (const [unit, size] of units) if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  return "1ms";
}

/** Go's time.Duration.String() of whole milliseconds: 15s, 1m0s, 1h0m0s, 1.5s, 500ms */
export function goDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (Math.abs(ms) < SECOND) return `${ms}ms`;
  const h = Math.floor(ms / HOUR);
  const m = Math.floor((ms % HOUR) / MINUTE);
  const s = (ms % MINUTE) / SECOND;
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${s}s`;
}

const GO_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: SECOND, m: MINUTE, h: HOUR };
const DATE_UNITS: Record<string, number> = { d: DAY, w: 7 * DAY, M: (365.25 * DAY) / 12, y: 365.25 * DAY };

/**
 * gtime.ParseIntervalStringToTimeDuration: "<10m>" brackets dropped, a bare
 * number is seconds, else a Go duration or a whole number of d, w, M or y.
 * `field` names the query field in the 400.
 */
export function parseIntervalText(text: string, field: string): number {
  const t = text.replace(/^</, "").replace(/>$/, "");
  if (/^\d+$/.test(t)) return Number(t) * SECOND;
  const date = /^(\d+)([dwMy])$/.exec(t);
  if (date) return Number(date[1]) * DATE_UNITS[date[2]!]!;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * GO_UNITS[m[2]!]!;
    end = re.lastIndex;
  }
  if (end !== t.length || end === 0) throw badRequest(`bad request data: ${field}: "${text}" is not a duration (15s, 1m, 1h)`);
  return Math.round(total);
}

const VARIABLE_INTERVALS = new Set(["$__interval", "${__interval}", "$__interval_ms", "${__interval_ms}", "$__rate_interval", "${__rate_interval}"]);
const isRateInterval = (text: string) => text === "$__rate_interval" || text === "${__rate_interval}";

export interface StepInput {
  fromMs: number;
  toMs: number;
  /** the query's minimum step ("interval"): a duration or a variable */
  interval?: string | undefined;
  /** the panel's interval as the front end sent it (0: none) */
  intervalMs: number;
  maxDataPoints: number;
  /** the data source's scrape interval (jsonData.timeInterval) */
  scrapeInterval?: string | undefined;
}

/** the Prometheus $__rate_interval: max(interval + scrape, 4 x scrape) */
export function rateInterval(intervalMs: number, scrapeInterval: string | undefined): number {
  const scrape = parseIntervalText(scrapeInterval || "15s", "jsonData.timeInterval");
  return Math.max(intervalMs + scrape, 4 * scrape);
}

/** promlib's calculatePrometheusInterval: at least the minimum, about maxDataPoints points, never over 11,000 */
export function prometheusStep(input: StepInput): number {
  const queryInterval = input.interval && !VARIABLE_INTERVALS.has(input.interval) && input.interval !== "0s" ? input.interval : "";
  const min = queryInterval
    ? parseIntervalText(queryInterval, "interval")
    : input.intervalMs
      ? input.intervalMs
      : input.scrapeInterval
        ? parseIntervalText(input.scrapeInterval, "jsonData.timeInterval")
        : 15 * SECOND;
  const range = input.toMs - input.fromMs;
  const calculated = range / (input.maxDataPoints || 1500);
  const chosen = calculated < min ? min : roundInterval(calculated);
  const safe = roundInterval(range / 11_000);
  const step = Math.max(chosen, safe);
  return input.interval && isRateInterval(input.interval) ? rateInterval(step, input.scrapeInterval) : step;
}

/** promlib's InterpolateVariables values for a query run with this step */
export function prometheusVariables(input: StepInput, stepMs: number): Record<string, string> {
  let rate: number;
  if (input.interval && isRateInterval(input.interval)) rate = stepMs;
  else {
    const i = input.interval;
    const asked = i === "$__interval" || i === "${__interval}" ? goDuration(stepMs) : i?.startsWith("$") ? undefined : i;
    // the panel's interval as the request carries it: 1s when the front end sent none
    rate = rateInterval(input.intervalMs || 1000, asked || input.scrapeInterval);
  }
  return {
    __interval_ms: String(stepMs),
    __interval: formatInterval(stepMs),
    __rate_interval_ms: String(rate),
    __rate_interval: goDuration(rate),
    ...rangeVariables(input.toMs - input.fromMs),
  };
}

/** the loki plugin's calculateStep: the query's step, else max(interval, range / 11,000), in whole ms */
export function lokiStep(step: string | undefined, intervalMs: number, rangeMs: number, resolution = 1): number {
  if (step) return parseIntervalText(step, "step") * resolution;
  return Math.ceil(Math.max(intervalMs * resolution, rangeMs / 11_000));
}

/** replaces $__interval, $__range and friends (both $x and ${x} forms) */
export function interpolate(expr: string, values: Record<string, string>): string {
  let out = expr;
  // longer names first: $__interval_ms before $__interval
  for (const name of Object.keys(values).sort((a, b) => b.length - a.length)) {
    out = out.split(`\${${name}}`).join(values[name]!).split(`$${name}`).join(values[name]!);
  }
  return out;
}

/** the range variables both plugins fill */
export function rangeVariables(rangeMs: number): Record<string, string> {
  const seconds = Math.round(rangeMs / 1000);
  return { __range_ms: String(rangeMs), __range_s: String(seconds), __range: `${seconds}s` };
}
