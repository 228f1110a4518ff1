// Checks, through HTTP, that a running server compiles user regexes with RE2
// (src/lib/re2.ts loaded in this runtime or binary): both stores accept RE2's
// \z and refuse a lookahead with Go's message.
import { expect } from "vitest";

export async function expectRe2(urls: Record<string, string>): Promise<void> {
  const tenant = { "X-Scope-OrgID": "e2e" };
  const logs = (q: string) => fetch(`${urls.logs}/svc/api/v1/query_range?${new URLSearchParams({ query: q })}`, { headers: tenant });
  const prom = (q: string) => fetch(`${urls.metrics}/prometheus/api/v1/query?${new URLSearchParams({ query: q })}`, { headers: tenant });
  expect((await logs('{app="x"} |~ "a\\\\z"')).status).toBe(200);
  const refused = await logs('{app="x"} |~ "(?=a)"');
  expect([refused.status, (await refused.text()).trim()]).toEqual([400, "parse error : error parsing regexp: invalid or unsupported Perl syntax: `(?=`"]);
  expect((await prom('up{x=~"a\\\\z"}')).status).toBe(200);
  const bad = await prom('up{x=~"(?=a)"}');
  expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, 'invalid parameter "query": 1:4: parse error: error parsing regexp: invalid or unsupported Perl syntax: `(?=`']);
}
