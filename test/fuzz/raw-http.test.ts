// Fuzz at the socket: malformed chunked encoding, bodies shorter than their
// Content-Length, bad request lines, huge and broken headers, plus seeded
// byte-level mutations of valid requests, against all three listeners. Each
// exchange gets an HTTP answer that is not a 5xx (505 is the runtime's answer
// to an unsupported HTTP version), or, when the request is incomplete, a clean
// close; never a reset or a hang. None may be logged as an unhandled error.
import { describe, expect, it } from "vitest";
import { createRng, seedFromEnv, type Rng } from "./support/prng.ts";
import { rawExchange, type RawOutcome } from "./support/raw.ts";
import { DEADLINE_MS, unhealthy, useTarget, type Service } from "./support/target.ts";

const SEED = seedFromEnv(1618);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const MUTATIONS = Math.max(1, Math.round(60 * SCALE));

const PUSH: Record<Service, string> = { dashboard: "/api/annotations", logs: "/svc/api/v1/push", metrics: "/api/v1/push" };
const H = "Host: 127.0.0.1\r\nX-Scope-OrgID: fuzz\r\nAuthorization: Basic YWRtaW46YWRtaW4=\r\n";

/** [name, bytes, may the server close without an answer (the request is incomplete)] */
function fixedCases(push: string): Array<[string, string, boolean]> {
  return [
    ["bad chunk size", `POST ${push} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`, false],
    ["huge chunk size", `POST ${push} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nfffffffffffffffffff\r\nabc\r\n0\r\n\r\n`, false],
    ["chunk longer than sent", `POST ${push} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n100\r\n{"a":1}`, true],
    ["chunked without the last chunk", `POST ${push} HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n2\r\n{}\r\n`, true],
    ["body shorter than Content-Length", `POST ${push} HTTP/1.1\r\n${H}Content-Length: 100\r\nContent-Type: application/json\r\n\r\n{"streams":`, true],
    ["Content-Length and chunked", `POST ${push} HTTP/1.1\r\n${H}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, false],
    ["two Content-Lengths", `POST ${push} HTTP/1.1\r\n${H}Content-Length: 4\r\nContent-Length: 5\r\n\r\nabcde`, false],
    ["negative Content-Length", `POST ${push} HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n`, false],
    ["Content-Length not a number", `POST ${push} HTTP/1.1\r\n${H}Content-Length: abc\r\n\r\n`, false],
    ["Content-Length of 400 digits", `POST ${push} HTTP/1.1\r\n${H}Content-Length: ${"9".repeat(400)}\r\n\r\nabc`, true],
    ["empty request line", "\r\n\r\n", false],
    ["garbage request line", "GARBAGE\r\n\r\n", false],
    ["HTTP/9.9", `GET /ready HTTP/9.9\r\n${H}\r\n`, false],
    ["lowercase request line", `get /ready http/1.1\r\n${H}\r\n`, false],
    ["bad percent-encoding in the path", `GET /%zz%ff/%c0%af HTTP/1.1\r\n${H}\r\n`, false],
    ["NUL in the path", `GET /re\x00ady HTTP/1.1\r\n${H}\r\n`, false],
    ["absolute-form target", `GET http://evil.test/ready HTTP/1.1\r\n${H}\r\n`, false],
    ["asterisk target", `OPTIONS * HTTP/1.1\r\n${H}\r\n`, false],
    ["100 KiB path", `GET /${"a".repeat(100_000)} HTTP/1.1\r\n${H}\r\n`, false],
    ["100 KiB header", `GET /ready HTTP/1.1\r\n${H}X-Big: ${"a".repeat(100_000)}\r\n\r\n`, false],
    ["2000 headers", `GET /ready HTTP/1.1\r\n${H}${Array.from({ length: 2000 }, (_, i) => `X-H${i}: v`).join("\r\n")}\r\n\r\n`, false],
    ["header without a colon", `GET /ready HTTP/1.1\r\n${H}NoColonHere\r\n\r\n`, false],
    ["folded header", `GET /ready HTTP/1.1\r\n${H}X-A: a\r\n b\r\n\r\n`, false],
    ["NUL in a header", `GET /ready HTTP/1.1\r\n${H}X-A: a\x00b\r\n\r\n`, false],
    ["high bytes in headers", `GET /ready HTTP/1.1\r\n${H}X-Scope-OrgID: \xff\xfe\r\nAuthorization: Basic \xff\r\n\r\n`, false],
    ["no Host", "GET /ready HTTP/1.1\r\n\r\n", false],
    ["two Hosts", "GET /ready HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", false],
    ["LF line ends", "GET /ready HTTP/1.1\nHost: a\n\n", false],
    ["unfinished head", "GET /ready HTTP/1.1\r\nHost: a\r\n", true],
    ["pipelined", `GET /ready HTTP/1.1\r\n${H}\r\nGET /ready HTTP/1.1\r\n${H}\r\n`, false],
    ["invalid UTF-8 JSON body", `POST ${push} HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 12\r\n\r\n{"a":"\xff\xc0\xaf"}  `, false],
  ];
}

/** a valid request with a few bytes changed, inserted or removed */
function mutateRequest(rng: Rng, push: string): string {
  const body = '{"streams":[{"stream":{"job":"fz"},"values":[["1","x"]]}]}';
  let s = `POST ${push} HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const n = 1 + rng.int(4);
  for (let i = 0; i < n; i++) {
    const at = rng.int(s.length);
    const r = rng.next();
    const junk = String.fromCharCode(...Array.from({ length: 1 + rng.int(4) }, () => rng.pick([0, 9, 10, 13, 32, 58, 37, 0x7f, 0xff, 0x80, rng.int(256)])));
    if (r < 0.4) s = s.slice(0, at) + junk + s.slice(at + 1);
    else if (r < 0.7) s = s.slice(0, at) + junk + s.slice(at);
    else s = s.slice(0, at) + s.slice(at + 1 + rng.int(8));
  }
  return s;
}

const acceptable = (o: RawOutcome, mayClose: boolean) =>
  (o.kind === "answered" && (o.status < 500 || o.status === 505)) || (o.kind === "closed" && mayClose);

describe("fuzz: raw HTTP on every listener", () => {
  const t = useTarget();

  it("every malformed exchange is answered (or cleanly closed when incomplete), never 5xx, reset or hung", async () => {
    const target = t.target;
    const rng = createRng(SEED);
    const failures: string[] = [];
    let sent = 0;
    for (const service of ["dashboard", "logs", "metrics"] as const) {
      const cases = fixedCases(PUSH[service]);
      for (let i = 0; i < MUTATIONS; i++) cases.push([`mutation ${i}`, mutateRequest(rng, PUSH[service]), true]);
      for (const [name, bytes, mayClose] of cases) {
        const o = await rawExchange(target.url(service), bytes, DEADLINE_MS);
        sent++;
        if (!acceptable(o, mayClose)) {
          failures.push(`${service} ${name}: ${JSON.stringify(o)} <- ${JSON.stringify(bytes.slice(0, 120))}`);
          if (o.kind === "hang" || o.kind === "reset") await target.restart();
        }
      }
    }
    // a refused or cut-off request is the client's fault: logged at most as a warning, never as an unhandled error
    const logged = target.takeErrors();
    const text = `raw HTTP fuzz: seed ${SEED} (FUZZ_SEED=${SEED} repeats it), ${sent} exchanges, ${failures.length} failures\n${failures.join("\n")}\nlogged as errors: ${logged}`;
    console.log(text);
    expect(await unhealthy(target), text).toEqual([]);
    expect(failures.length, text).toBe(0);
    expect(logged, text).toBe("");
  }, 600_000);
});
