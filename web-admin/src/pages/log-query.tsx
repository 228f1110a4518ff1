// A small LogQL box: a tenant's recent lines (or a metric query's latest
// values) from GET /svc/api/v1/query_range, newest first.
import { useEffect, useState } from "preact/hooks";
import { Button, ErrorNote, Field, SelectField } from "../components/ui.tsx";
import { useAction } from "../lib/hooks.ts";
import { storeRequest, type Listener } from "../lib/stores.ts";

interface StreamResult {
  resultType: "streams";
  result: { stream: Record<string, string>; values: [string, string][] }[];
}
interface MatrixResult {
  resultType: "matrix" | "vector";
  result: { metric: Record<string, string>; values?: [number, string][]; value?: [number, string] }[];
}
type QueryData = StreamResult | MatrixResult;

const RANGES: [string, string][] = [["900", "last 15 minutes"], ["3600", "last hour"], ["21600", "last 6 hours"], ["86400", "last 24 hours"], ["604800", "last 7 days"]];

const labelsText = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(", ")}}`;

export function LogQuery(props: { store: Listener; tenant: string }) {
  const tenant = props.tenant;
  const [logql, setLogql] = useState("");
  const [range, setRange] = useState("3600");
  const [data, setData] = useState<QueryData>();
  useEffect(() => {
    // start from a selector the tenant's data has: its first label
    storeRequest<{ data?: string[] }>(props.store, "/svc/api/v1/labels", { tenant }).then(
      (r) => setLogql((q) => q || `{${(r.data ?? []).find((n) => n !== "__name__") ?? "job"}=~".+"}`),
      () => setLogql((q) => q || '{job=~".+"}'),
    );
  }, [props.tenant]);
  const run = useAction(async () => {
    const end = Date.now() * 1e6;
    const start = end - Number(range) * 1e9;
    const q = new URLSearchParams({ query: logql, limit: "100", direction: "backward", start: String(start), end: String(end) });
    const r = await storeRequest<{ data: QueryData }>(props.store, `/svc/api/v1/query_range?${q}`, { tenant });
    setData(r.data);
  });
  return (
    <article class="card" aria-labelledby="query-title">
      <h2 id="query-title">Logs of {props.tenant}</h2>
      <form class="query-form" onSubmit={(e) => { e.preventDefault(); void run.run(); }}>
        <Field label="LogQL query" wide>
          {(id) => <input id={id} name="query" class="mono" value={logql} onInput={(e) => setLogql((e.target as HTMLInputElement).value)} spellcheck={false} required />}
        </Field>
        <SelectField label="Time range" name="range" value={range} onChange={setRange} options={RANGES} />
        <Button kind="primary" type="submit" pending={run.pending}>Run query</Button>
      </form>
      <ErrorNote error={run.error} />
      {data && <Result data={data} />}
    </article>
  );
}

function Result({ data }: { data: QueryData }) {
  if (data.resultType === "streams") {
    const lines = data.result
      .flatMap((s) => s.values.map(([ts, line]) => ({ ts: BigInt(ts), line, labels: s.stream })))
      .sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0))
      .slice(0, 100);
    if (lines.length === 0) return <p class="muted">No lines in this time range.</p>;
    return (
      <ol class="log-lines" aria-label="Log lines, newest first">
        {lines.map((l) => (
          <li>
            <time dateTime={new Date(Number(l.ts / 1_000_000n)).toISOString()}>{new Date(Number(l.ts / 1_000_000n)).toLocaleString()}</time>
            <span class="labels">{labelsText(l.labels)}</span>
            <span class="line">{l.line}</span>
          </li>
        ))}
      </ol>
    );
  }
  if (data.result.length === 0) return <p class="muted">No series in this time range.</p>;
  return (
    <table class="data">
      <thead><tr><th scope="col">Series</th><th scope="col" class="num">Latest value</th></tr></thead>
      <tbody>
        {data.result.map((s) => {
          const last = s.value ?? s.values?.[s.values.length - 1];
          return <tr><td class="mono">{labelsText(s.metric)}</td><td class="num">{last?.[1] ?? "–"}</td></tr>;
        })}
      </tbody>
    </table>
  );
}
