// Overview: the three services (address, TLS mode, health, version), storage,
// edition and licence, and live figures refreshed every 5 seconds.
import { useMemo, useState } from "preact/hooks";
import { Sparkline } from "../components/charts.tsx";
import { Badge, ErrorNote, Loaded, PageHeader } from "../components/ui.tsx";
import { api } from "../lib/api.ts";
import * as fmt from "../lib/format.ts";
import { useLoad, usePoll } from "../lib/hooks.ts";
import { createLiveFigures, type Figures } from "../lib/live.ts";
import { editionOf, useSession } from "../lib/session.ts";
import { storeRequest, topology, type Listener, type Topology } from "../lib/stores.ts";

interface Stats {
  users?: number;
  orgs?: number;
  dashboards?: number;
  datasources?: number;
  serviceAccounts?: number;
  /** cap, free and filesystemBytes as the disk guard last measured them (storage.max_disk_usage) */
  storage?: {
    dataDir: string | null; bytes: number; cap?: number | null; free?: number | null; filesystemBytes?: number | null; pushesRefused?: string | null;
    /** the embedded PGlite, or a PostgreSQL server (storage.database_url) and its database's size */
    backend?: "pglite" | "postgres"; databaseBytes?: number;
  };
}

interface ClusterNode {
  name: string;
  roles: string[];
  urls: Record<string, string>;
  version: string;
  storeActive: boolean;
  startedAt: string;
  heartbeatAt: string;
  up: boolean;
  self: boolean;
}

interface Cluster {
  backend: "pglite" | "postgres";
  nodes: ClusterNode[];
  storeNode: string | null;
}

export function OverviewPage() {
  const topo = useLoad(topology);
  return (
    <section>
      <PageHeader title="Overview" description="The three services of this Outpost, its storage and what it is doing right now." />
      <Loaded load={topo}>{(t) => <OverviewBody topo={t} />}</Loaded>
    </section>
  );
}

function OverviewBody({ topo }: { topo: Topology }) {
  return (
    <>
      {topo.settingsError && (
        <p class="alert info">
          Addresses and TLS modes come from <code>/api/admin/settings</code>, which needs a server administrator ({topo.settingsError.message}). The
          default ports are assumed.
        </p>
      )}
      <div class="grid services">
        <ServiceCard l={topo.dashboard} />
        <ServiceCard l={topo.logs} />
        <ServiceCard l={topo.metrics} />
      </div>
      <LiveFigures topo={topo} />
      <div class="grid">
        <StorageCard />
        <EditionCard />
      </div>
      <NodesCard />
    </>
  );
}

interface Health {
  ok: boolean;
  detail: string;
  version?: string;
}

async function healthOf(l: Listener): Promise<Health> {
  if (l.name === "dashboard") {
    const h = await api<{ database: string; version: string; outpostVersion?: string }>("/api/health");
    return { ok: h.database === "ok", detail: `database ${h.database}`, version: h.outpostVersion ?? h.version };
  }
  const ready = await storeRequest<string>(l, "/ready", { text: true });
  const path = l.name === "logs" ? "/svc/api/v1/status/buildinfo" : "/api/v1/status/buildinfo";
  const info = await storeRequest<{ version?: string; data?: { version?: string } }>(l, path).catch(() => undefined);
  return { ok: ready.trim() === "ready", detail: ready.trim(), version: info?.version ?? info?.data?.version };
}

function ServiceCard({ l }: { l: Listener }) {
  const [health, setHealth] = useState<Health>();
  const [error, setError] = useState<Error>();
  usePoll(async () => {
    if (!l.enabled) return;
    try {
      setHealth(await healthOf(l));
      setError(undefined);
    } catch (err) {
      setError(err as Error);
    }
  }, 10_000);
  const state = !l.enabled ? <Badge>turned off</Badge> : error ? <Badge tone="bad">unreachable</Badge> : !health ? <Badge>checking…</Badge> : (
    <Badge tone={health.ok ? "ok" : "bad"}>{health.ok ? "healthy" : "unhealthy"}</Badge>
  );
  return (
    <article class="card service" aria-labelledby={`svc-${l.name}`}>
      <div class="card-head">
        <h2 id={`svc-${l.name}`}>{l.title}</h2>
        {state}
      </div>
      <dl class="facts">
        <dt>Address</dt>
        <dd><code>{l.url}</code></dd>
        <dt>TLS</dt>
        <dd>{l.tls === "none" ? "plain HTTP" : l.tls}{l.clientAuth && l.clientAuth !== "NoClientCert" ? ` (${l.clientAuth})` : ""}</dd>
        <dt>Health</dt>
        <dd>{!l.enabled ? `turned off in the configuration (${l.name}.enabled: false)` : error ? "–" : health?.detail ?? "checking…"}</dd>
        <dt>Version</dt>
        <dd>{health?.version ?? "–"}</dd>
      </dl>
      {error && (
        <p class="alert error small" role="alert">
          This browser cannot reach it: {error.message}.
          {l.tls === "mutual TLS" ? " With mutual TLS a browser needs a client certificate." : l.tls !== "none" ? " Open the address once to accept its certificate." : ""}
        </p>
      )}
    </article>
  );
}

const HISTORY = 60;

function LiveFigures({ topo }: { topo: Topology }) {
  const next = useMemo(() => createLiveFigures(topo), [topo]);
  const [history, setHistory] = useState<Figures[]>([]);
  usePoll(async () => {
    const f = await next();
    if (f) setHistory((h) => [...h.slice(-(HISTORY - 1)), f]);
  }, 5_000);
  const last = history[history.length - 1];
  const figure = (label: string, key: keyof Omit<Figures, "at">, unit: string) => {
    const values = history.map((f) => f[key] ?? 0);
    const v = last?.[key];
    return (
      <div class="card figure">
        <div class="stat">
          <span class="stat-value">{last === undefined ? "…" : v === undefined ? "–" : unit ? fmt.rate(v, unit) : fmt.number(v)}</span>
          <span class="stat-label">{label}</span>
        </div>
        <Sparkline values={values} label={`${label}, last ${history.length * 5} seconds`} />
      </div>
    );
  };
  return (
    <section aria-labelledby="live-title" class="live">
      <h2 id="live-title">Live <span class="muted small">(every 5 s{last ? `, updated ${new Date(last.at).toLocaleTimeString()}` : ", first figures in 5 s"})</span></h2>
      <div class="grid figures">
        {figure("Log lines ingested", "logLinesPerSec", "lines")}
        {figure("Samples ingested", "samplesPerSec", "samples")}
        {figure("Active series", "activeSeries", "")}
        {figure("Store requests", "requestsPerSec", "req")}
      </div>
    </section>
  );
}

function StorageCard() {
  const stats = useLoad(() => api<Stats>("/api/admin/stats"));
  return (
    <article class="card" aria-labelledby="storage-title">
      <h2 id="storage-title">Storage</h2>
      <Loaded load={stats} what="The storage figures">
        {(s) => (
          <>
          {s.storage?.pushesRefused && <p class="alert error" role="alert">Pushes are refused: {s.storage.pushesRefused}</p>}
          <dl class="facts">
            <dt>Data directory</dt>
            <dd>{s.storage?.dataDir ? <code>{s.storage.dataDir}</code> : "in memory (nothing is kept after a restart)"}</dd>
            <dt>Size on disk</dt>
            <dd>{fmt.bytes(s.storage?.bytes)}</dd>
            <dt>Database</dt>
            <dd>
              {s.storage?.backend === "postgres"
                ? <>PostgreSQL server ({fmt.bytes(s.storage.databaseBytes)}; <code>storage.database_url</code>)</>
                : <>embedded (PGlite, in the data directory)</>}
            </dd>
            {s.storage?.dataDir && (
              <>
                <dt>Disk cap</dt>
                <dd>{s.storage.cap ? <>{fmt.bytes(s.storage.cap)} (past it the oldest telemetry is dropped first)</> : <>none (<code>storage.max_disk_usage</code>)</>}</dd>
                {s.storage.free != null && (
                  <>
                    <dt>Free on its filesystem</dt>
                    <dd>{fmt.bytes(s.storage.free)}{s.storage.filesystemBytes ? <> of {fmt.bytes(s.storage.filesystemBytes)}</> : null}</dd>
                  </>
                )}
              </>
            )}
            <dt>Users · organizations</dt>
            <dd>{fmt.number(s.users)} · {fmt.number(s.orgs)}</dd>
            <dt>Dashboards · data sources</dt>
            <dd>{fmt.number(s.dashboards)} · {fmt.number(s.datasources)}</dd>
            <dt>Service accounts</dt>
            <dd>{fmt.number(s.serviceAccounts)}</dd>
          </dl>
          </>
        )}
      </Loaded>
    </article>
  );
}

/** the nodes sharing the database (one with the embedded database), their roles and which runs the stores */
function NodesCard() {
  const cluster = useLoad(() => api<Cluster>("/api/admin/cluster"));
  return (
    <article class="card" aria-labelledby="nodes-title">
      <h2 id="nodes-title">Nodes</h2>
      <Loaded load={cluster} what="The list of nodes">
        {(c) => (
          <>
            <p class="muted small">
              {c.backend === "postgres"
                ? <>Nodes sharing one PostgreSQL database. The stores run on one node at a time{c.storeNode ? <> (now: <strong>{c.storeNode}</strong>)</> : <>: none does now (a failover may be under way)</>}; the others forward to it.</>
                : <>One node: the embedded database belongs to this process.</>}
            </p>
            <table class="data">
              <thead>
                <tr><th scope="col">Node</th><th scope="col">Roles</th><th scope="col">Stores</th><th scope="col">State</th><th scope="col">Version</th><th scope="col">Started</th><th scope="col">Last heard</th></tr>
              </thead>
              <tbody>
                {c.nodes.map((n) => (
                  <tr key={n.name + n.startedAt}>
                    <td>{n.name}{n.self ? <span class="muted"> (this one)</span> : null}</td>
                    <td>{n.roles.join(", ")}</td>
                    <td>{n.roles.includes("stores") || n.roles.includes("all") ? (n.storeActive ? <Badge tone="ok">active</Badge> : <Badge>standby</Badge>) : "—"}</td>
                    <td>{n.up ? <Badge tone="ok">up</Badge> : <Badge tone="bad">down</Badge>}</td>
                    <td>{n.version}</td>
                    <td>{fmt.dateTime(n.startedAt)}</td>
                    <td>{fmt.ago(n.heartbeatAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Loaded>
    </article>
  );
}

function EditionCard() {
  const session = useSession();
  const edition = editionOf(session);
  const licence = useLoad(async () => (edition === "enterprise" ? api<boolean>("/api/licensing/check") : undefined), [edition]);
  const info = session.settings.licenseInfo ?? {};
  return (
    <article class="card" aria-labelledby="edition-title">
      <h2 id="edition-title">Edition and licence</h2>
      <dl class="facts">
        <dt>Edition</dt>
        <dd>{session.settings.buildInfo?.edition ?? edition}</dd>
        <dt>Version</dt>
        <dd>{session.settings.outpost?.version ?? session.settings.buildInfo?.version ?? "–"} <span class="muted">({(session.settings.buildInfo?.commit ?? "").slice(0, 10) || "no commit"})</span></dd>
        <dt>Licence</dt>
        <dd>
          {edition !== "enterprise" ? (
            "not needed in this edition"
          ) : licence.loading ? (
            "checking…"
          ) : licence.error ? (
            <ErrorNote error={licence.error} what="The licence state" />
          ) : licence.data ? (
            <>
              <Badge tone="ok">valid</Badge> {typeof info.expiry === "number" && info.expiry > 0 ? `until ${new Date(info.expiry * 1000).toLocaleDateString()}` : ""}{" "}
              <a href="/licence">Details</a>
            </>
          ) : (
            <>
              <Badge tone="warn">none installed</Badge> <a href="/licence">Install a licence</a>
            </>
          )}
        </dd>
      </dl>
    </article>
  );
}
