// Request durations of a listener as a Prometheus histogram (by method, route
// pattern and status), recorded by the base app's outer layer for every
// request, so recorded cheaply (lib/labelled-histogram.ts).
import type { Context } from "hono";
import type { Registry } from "prom-client";
import { LabelledHistogram } from "../labelled-histogram.ts";

/** the stores' bounds, in seconds */
const STORE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface RequestHistogramOptions {
  /** the label naming the route (default "route"; the dashboard's real counterpart calls it "handler") */
  routeLabel?: string;
  /** the route pattern of an answered request (default: hono's matched pattern) */
  routeOf?: (c: Context) => string;
  buckets?: readonly number[];
}

export class RequestHistogram {
  readonly #histogram: LabelledHistogram;
  readonly #routeOf: (c: Context) => string;

  constructor(name: string, help: string, options: RequestHistogramOptions = {}) {
    this.#histogram = new LabelledHistogram(name, help, ["method", options.routeLabel ?? "route", "status_code"], options.buckets ?? STORE_BUCKETS);
    this.#routeOf = options.routeOf ?? ((c) => c.req.routePath);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.#histogram.observe([method, route, String(status)], seconds);
  }

  /** a request's duration, by its method, route pattern and status */
  readonly observeRequest = (c: Context, seconds: number): void => this.observe(c.req.method, this.#routeOf(c), c.res.status, seconds);

  /** shown by a registry's exposition from now on */
  registerWith(registry: Registry): void {
    this.#histogram.registerWith(registry);
  }
}

/** a request histogram of the given name; the base app observes each request into it (createStoreApp's `durations`) */
export function requestDurations(name: string): RequestHistogram {
  return new RequestHistogram(name, "Time (in seconds) spent serving HTTP requests.");
}
