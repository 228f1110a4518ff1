// Which pending delete requests touch a stream is worked out once per request
// and stream (deletion/query.ts touchingOf), not every request against every
// stream at each query: a tenant's thousand pending requests held the event
// loop for 2.5 s on the first query over 5,000 streams (30 ms now). Here: the
// remembered lists stay right as requests come and go, and a request already
// matched is not matched again.
import { describe, expect, it } from "vitest";
import { touchingOf, type ActiveDelete } from "../../src/apps/logstore/core/deletion/query.ts";
import type { Stream } from "../../src/apps/logstore/core/store.ts";

let seq = 0;
/** a request whose selector is app="<app>"; `checks` counts how often its selector is tested */
function request(app: string): ActiveDelete & { checks: number } {
  const d = {
    query: `{app="${app}"}`,
    from: 0n,
    to: 1n,
    stages: [],
    seq: seq++,
    checks: 0,
    matchers: [] as ActiveDelete["matchers"],
  };
  const matcher = { name: "app", op: "=" as const, value: app };
  // counts each test of the selector against a stream's labels
  Object.defineProperty(d, "matchers", { get: () => { d.checks++; return [matcher]; } });
  return d;
}

const stream = (app: string) => ({ labels: { app } }) as unknown as Stream;

describe("delete requests touching a stream", () => {
  it("matches each request once per stream; new ones are added, processed or cancelled ones leave", () => {
    const a = stream("a");
    const b = stream("b");
    const r1 = request("a");
    const r2 = request("b");
    let all: ActiveDelete[] = [r1, r2];
    expect(touchingOf(a, all)).toEqual([r1]);
    expect(touchingOf(b, all)).toEqual([r2]);
    // the same list again: nothing is matched
    touchingOf(a, all);
    touchingOf(b, all);
    expect([r1.checks, r2.checks]).toEqual([2, 2]);
    // a new request: only it is matched
    const r3 = request("a");
    all = [...all, r3];
    expect(touchingOf(a, all)).toEqual([r1, r3]);
    expect(touchingOf(b, all)).toEqual([r2]);
    expect([r1.checks, r2.checks, r3.checks]).toEqual([2, 2, 2]);
    // r1 processed: it leaves the list without anything being matched again
    r1.gone = true;
    all = [r2, r3];
    expect(touchingOf(a, all)).toEqual([r3]);
    expect([r1.checks, r2.checks, r3.checks]).toEqual([2, 2, 2]);
  });
});
