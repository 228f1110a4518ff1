// The server under fuzz: Outpost, run from source under Bun as a child
// process, so a request that hangs or grows the process never blocks the test
// runner. Every request has a deadline; a hang, reset or crash is recorded
// and the server restarted, so one cause does not hide the next.
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startChild, freePortArgs, type Child } from "../../helpers/process.ts";
import { bunBin, repoRoot } from "../../helpers/paths.ts";

export type Service = "dashboard" | "logs" | "metrics";

export interface FuzzRequest {
  service: Service;
  method: string;
  /** path and query, already encoded (bad encodings on purpose) */
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** the route template and what kind of input this is, for grouping failures */
  route: string;
  input: string;
}

export type Outcome =
  | { kind: "answered"; status: number; body: string }
  | { kind: "hang" | "reset" | "crash"; detail: string }
  | { kind: "skipped"; detail: string }
  /** headers past the listener's limit: a 431, or a close before the client has read it (both right) */
  | { kind: "refused-headers"; detail: string };

/** the runtimes' limit on a request's header block (Node's and Bun's default) */
const HEADER_LIMIT_BYTES = 16 * 1024;

/** the request line counts against the same limit: a 100 KB query string is refused with 431 too */
function headerBytes(req: FuzzRequest): number {
  let n = req.method.length + req.path.length + 11;
  for (const [k, v] of Object.entries(req.headers ?? {})) n += k.length + String(v).length + 4;
  return n;
}

export interface Failure {
  route: string;
  method: string;
  service: Service;
  input: string;
  outcome: string;
  sample: string;
  logged: string;
}

export const DEADLINE_MS = Number(process.env.FUZZ_DEADLINE_MS ?? 10_000);
/** a run stops after this many hangs, resets or crashes (each costs a deadline and a restart) */
export const MAX_RESTARTS = Number(process.env.FUZZ_MAX_RESTARTS ?? 3);
export const ADMIN_TOKEN = "fuzz-metrics-admin-token";

/**
 * FUZZ_PART=k/n sends only the k-th of every n requests of the seeded
 * sequence. `npm test` gives each runner one half (1/2 under Vitest, 2/2
 * under bun test): the server under fuzz is the same Bun child process under
 * both runners, so the two halves together send every request once instead
 * of the same requests twice. Unset: every request.
 */
export const PART = parsePart(process.env.FUZZ_PART);

function parsePart(raw: string | undefined): { index: number; of: number } {
  if (raw === undefined || raw === "") return { index: 1, of: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  const index = Number(m?.[1]);
  const of = Number(m?.[2]);
  if (!m || of < 1 || index < 1 || index > of) throw new Error(`FUZZ_PART must be k/n with 1 <= k <= n, got ${raw}`);
  return { index, of };
}

export interface Target {
  url(service: Service): string;
  send(req: FuzzRequest): Promise<Outcome>;
  /** what the server logged at error level since the last call */
  takeErrors(): string;
  restart(): Promise<void>;
  stop(): Promise<void>;
  readonly restarts: number;
}

export async function startTarget(extraArgs: string[] = []): Promise<Target> {
  const args = [join(repoRoot, "src", "main.ts"), "serve", "--in-memory", "--log-format", "json", "--log-level", "warn", "--metrics-admin-token", ADMIN_TOKEN, ...freePortArgs, ...extraArgs];
  const spawnOne = async () => {
    const started = await startChild(bunBin, args, { cwd: repoRoot, timeoutMs: 60_000 });
    // a runner that exits early (interrupted, timed out) must not leave a server behind
    process.once("exit", () => started.process.kill("SIGKILL"));
    return started;
  };
  let child: Child = await spawnOne();
  let seenOut = 0;
  let seenErr = 0;
  let restarts = 0;
  const alive = () => child.process.exitCode === null && child.process.signalCode === null;
  const target: Target = {
    get restarts() { return restarts; },
    url: (service) => child.urls[service]!,
    takeErrors() {
      // the log goes to standard output, what is printed outside it to standard error
      const out = child.stdout();
      const err = child.stderr();
      const fresh = out.slice(seenOut) + err.slice(seenErr);
      seenOut = out.length;
      seenErr = err.length;
      if (fresh.length === 0) return "";
      // error records of the JSON log, and anything printed outside it that looks like a crash
      const lines: string[] = [];
      for (const l of fresh.split("\n")) {
        let record: Record<string, unknown> | undefined;
        try {
          record = JSON.parse(l) as Record<string, unknown>;
        } catch {
          if (/^\s*at |Error:/.test(l)) lines.push(l.slice(0, 300));
          continue;
        }
        // the message and the frame that threw
        if (record?.level === "error") lines.push(`${String(record.msg)}: ${String(record.err ?? record.error ?? "").split("\n").slice(0, 2).map((x) => x.trim()).join(" ")}`.slice(0, 300));
      }
      return lines.slice(0, 6).join(" | ");
    },
    async restart() {
      await child.stop("SIGKILL");
      child = await spawnOne();
      seenOut = 0;
      seenErr = 0;
      restarts++;
    },
    stop: () => child.stop("SIGKILL").then(() => undefined),
    async send(req) {
      const first = await sendOnce(req);
      // a server that answers before reading a body (401 to an anonymous write, 413) may close while
      // the client still writes it: on a loaded machine the client sees EPIPE or a reset, not the answer
      // (seen once in CI). The same request once more tells that refusal from a real failure.
      if (first.kind === "reset" && req.body !== undefined && req.method !== "GET" && req.method !== "HEAD") {
        const again = await sendOnce(req);
        return again.kind === "answered" ? again : first;
      }
      return first;
    },
  };
  async function sendOnce(req: FuzzRequest): Promise<Outcome> {
    let request: Request;
    try {
      request = new Request(target.url(req.service) + req.path, {
        method: req.method,
        headers: req.headers,
        body: req.body === undefined || req.method === "GET" || req.method === "HEAD" ? undefined : (req.body as BodyInit),
      });
    } catch (err) {
      return { kind: "skipped", detail: `the client refused to build it: ${String(err)}` };
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), DEADLINE_MS);
    try {
      const res = await fetch(request, { signal: abort.signal });
      const body = await res.text();
      return { kind: "answered", status: res.status, body };
    } catch (err) {
      if (abort.signal.aborted) return { kind: "hang", detail: `no answer within ${DEADLINE_MS} ms` };
      const cause = (err as { cause?: unknown }).cause;
      // give a dying process a moment to be seen as dead
      await new Promise((r) => setTimeout(r, 50));
      if (!alive()) return { kind: "crash", detail: `server exited: ${child.process.exitCode ?? child.process.signalCode}` };
      // the listener refuses an oversized request line or headers by answering 431 and closing; on a
      // busy machine, or while the client still writes a body, the close can reach the client before
      // the answer does (seen in CI: a 100 KB query string with a 1 MB body, EPIPE)
      if (headerBytes(req) > HEADER_LIMIT_BYTES) return { kind: "refused-headers", detail: String(cause ?? err).slice(0, 200) };
      return { kind: "reset", detail: String(cause ?? err).slice(0, 200) };
    } finally {
      clearTimeout(timer);
    }
  }
  return target;
}

/** 5xx is a failure except a 503 that a limit documents (the inflight push cap, stopping) */
export function isFailure(outcome: Outcome): boolean {
  if (outcome.kind === "skipped" || outcome.kind === "refused-headers") return false;
  if (outcome.kind !== "answered") return true;
  if (outcome.status === 503) return false;
  return outcome.status >= 500;
}

export function describeOutcome(o: Outcome): string {
  return o.kind === "answered" ? String(o.status) : o.kind;
}

/**
 * Sends requests one at a time (so a 5xx can be matched with what the server
 * logged), restarting the server after a hang, reset or crash.
 */
export async function run(target: Target, requests: Iterable<FuzzRequest>): Promise<{ sent: number; failures: Failure[]; statuses: Map<string, number> }> {
  const failures: Failure[] = [];
  const statuses = new Map<string, number>();
  let sent = 0;
  let restarts = 0;
  let index = 0;
  for (const req of requests) {
    // the whole seeded sequence is generated (same requests at the same positions); only this part is sent
    if (index++ % PART.of !== PART.index - 1) continue;
    const outcome = await target.send(req);
    if (outcome.kind === "skipped") continue;
    sent++;
    const key = describeOutcome(outcome);
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const logged = target.takeErrors();
    if (isFailure(outcome)) {
      failures.push({
        route: req.route, method: req.method, service: req.service, input: req.input, outcome: key,
        sample: `${req.path.slice(0, 160)}${typeof req.body === "string" ? ` body=${req.body.slice(0, 120)}` : req.body ? ` body=<${req.body.length} bytes>` : ""}`,
        logged: outcome.kind === "answered" ? `${outcome.body.slice(0, 160)} ${logged}` : outcome.detail,
      });
      if (outcome.kind !== "answered") {
        if (++restarts > MAX_RESTARTS) {
          failures.push({ ...failures[failures.length - 1]!, outcome: "stopped", input: `the run stopped after ${MAX_RESTARTS} restarts`, sample: "", logged: "" });
          break;
        }
        await target.restart();
      }
    }
  }
  return { sent, failures, statuses };
}

/** one line per distinct cause: route, method, outcome and input kind, with a count and one sample */
export function groupFailures(failures: Failure[]): string[] {
  const groups = new Map<string, { n: number; first: Failure }>();
  for (const f of failures) {
    const key = `${f.service} ${f.method} ${f.route} -> ${f.outcome} [${f.input}]`;
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { n: 1, first: f });
  }
  return [...groups.entries()].map(([key, g]) => `${key} x${g.n}\n    e.g. ${g.first.sample}\n    => ${g.first.logged}`);
}

export function report(name: string, seed: number, result: { sent: number; failures: Failure[]; statuses: Map<string, number> }): string {
  const lines = groupFailures(result.failures);
  const part = PART.of > 1 ? ` FUZZ_PART=${PART.index}/${PART.of}` : "";
  const summary = `${name}: seed ${seed} (FUZZ_SEED=${seed}${part} repeats it), ${result.sent} requests, statuses ${JSON.stringify(Object.fromEntries(result.statuses))}, ${result.failures.length} failures in ${lines.length} groups`;
  return [summary, ...lines].join("\n");
}

/** a target for the enclosing describe block, stopped after it; filled in before the first test */
export function useTarget(extraArgs: string[] = []): { target: Target } {
  const ctx = {} as { target: Target };
  beforeAll(async () => {
    ctx.target = await startTarget(extraArgs);
  }, 120_000);
  afterAll(async () => {
    await ctx.target?.stop();
  });
  return ctx;
}

/** which of the dashboard's /api/health and the stores' /ready do not answer 200 (within 5 s each) */
export async function unhealthy(target: Target): Promise<string[]> {
  const checks = [["dashboard", "/api/health"], ["logs", "/ready"], ["metrics", "/ready"]] as const;
  const results = await Promise.all(checks.map(async ([service, path]) => {
    try {
      const res = await fetch(target.url(service) + path, { signal: AbortSignal.timeout(5_000) });
      return res.status === 200 ? undefined : `${service}${path}: ${res.status}`;
    } catch (err) {
      return `${service}${path}: ${String((err as Error).name ?? err)}`;
    }
  }));
  return results.filter((r): r is string => r !== undefined);
}
