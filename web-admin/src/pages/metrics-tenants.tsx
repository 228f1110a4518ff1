// Metrics tenants: the admin API's tenants with their usage against their
// limits, and the access policies that reach each. The admin API token is
// asked for once and kept only for this tab's session (sessionStorage), never
// sent anywhere but the stores.
import { useEffect, useState } from "preact/hooks";
import { AdminTokenForm, ForgetAdminToken, useAdminToken } from "../components/admin-token.tsx";
import { Bars, Meter } from "../components/charts.tsx";
import { DataTable, type Column } from "../components/data-table.tsx";
import { AuthModeNote, TenantPolicies } from "../components/tenant-policies.tsx";
import { Badge, Button, Empty, ErrorNote, Loaded, PageHeader, ServerAdminsOnly } from "../components/ui.tsx";
import { loadPolicies } from "../lib/access.ts";
import { ApiFailure } from "../lib/api.ts";
import * as fmt from "../lib/format.ts";
import { useLoad, usePolledLoad } from "../lib/hooks.ts";
import { defaultsOf, limitOf, loadTenants, type TenantsData, type TenantView } from "../lib/metrics-tenants.ts";
import { useSession } from "../lib/session.ts";
import { adminRequest, topology, type Topology } from "../lib/stores.ts";
import { TenantForm } from "./metrics-tenant-form.tsx";

const meter = (label: string): Column => ({ label, class: "meter-col" });
const COLUMNS = ["Tenant", "Status", "Cluster", meter("Active series"), meter("Ingestion rate"), { label: "Over OTLP", class: "num" }, "Oldest sample", "Retention", "Limits from", "Access policies", ""];

/** a retention period as the store shows it ("744h"), "0s" meaning none */

export function MetricsTenantsPage() {
  const serverAdmin = useSession().user.isSvcAdmin;
  const topo = useLoad(topology);
  const token = useAdminToken();
  return (
    <section>
      <PageHeader title="Metrics tenants" description="Tenants of the metrics store, their limits and what they use. Managed through the tenant admin API.">
        {token.has && <ForgetAdminToken onForget={token.forget} />}
      </PageHeader>
      {!serverAdmin ? <ServerAdminsOnly what="This page" /> : <Loaded load={topo}>
        {(t) =>
          !t.metrics.enabled ? (
            <p class="alert info">The metrics store is turned off in this Outpost's configuration (<code>metrics.enabled: false</code>).</p>
          ) : token.has ? (
            <TenantList topo={t} onTokenRejected={token.forget} />
          ) : (
            <AdminTokenForm check={() => adminRequest(t.metrics, "/admin/api/v2/tenants")} onAccepted={token.accepted}>
              The tenant admin API of the metrics store (<code>{t.metrics.url}</code>) needs its admin token (<code>metrics.admin_token</code>, printed at
              first start).
            </AdminTokenForm>
          )
        }
      </Loaded>}
    </section>
  );
}

function TenantList(props: { topo: Topology; onTokenRejected: () => void }) {
  const tenants = usePolledLoad<TenantsData>(() => loadTenants(props.topo), 10_000);
  const policies = useLoad(loadPolicies);
  const { data, error } = tenants;
  const [editing, setEditing] = useState<TenantView | "new">();
  const [selected, setSelected] = useState<string>();
  useEffect(() => {
    if (error instanceof ApiFailure && error.status === 401) props.onTokenRejected();
  }, [error]);
  const current = data?.views.find((v) => v.name === selected);
  return (
    <>
      <div class="toolbar">
        <p class="muted">{data ? `${data.views.length} tenant${data.views.length === 1 ? "" : "s"} · refreshed every 10 s` : ""}</p>
        <Button kind="primary" onClick={() => setEditing("new")}>New tenant</Button>
      </div>
      <AuthModeNote store={props.topo.metrics} />
      <ErrorNote error={error} what="This page" />
      {!data && !error && <p class="loading" role="status">Loading tenants…</p>}
      {data && data.views.length === 0 && <Empty>No tenants yet. Create one to give it limits; tenants that only push data appear in the log and query APIs without being listed here.</Empty>}
      {data && data.views.length > 0 && data.lastRetentionRun !== undefined && (
        <p class="muted" title={data.lastRetentionRun ?? ""}>
          Retention deletes each tenant's samples past its period (compactor_blocks_retention_period);{" "}
          {data.lastRetentionRun ? `last run ${fmt.ago(data.lastRetentionRun)}.` : "it has not run since the metrics store started."}
        </p>
      )}
      {data && data.views.length > 0 && (
        <DataTable caption="Metrics tenants" columns={COLUMNS}>
          {data.views.map((v) => (
            <tr aria-selected={v.name === selected}>
              <th scope="row">
                <button type="button" class="link" onClick={() => setSelected(v.name === selected ? undefined : v.name)} aria-expanded={v.name === selected}>
                  {v.name}
                </button>
                {v.display_name && <div class="muted small">{v.display_name}</div>}
              </th>
              <td><Badge tone={v.status === "active" ? "ok" : "warn"}>{v.status}</Badge></td>
              <td>{v.cluster}</td>
              <td><Meter label={`Active series of ${v.name}`} value={v.stats?.numSeries} limit={limitOf(v, "max_global_series_per_user", data.defaults)} /></td>
              <td><Meter label={`Ingestion rate of ${v.name}`} value={v.stats?.ingestionRate} limit={limitOf(v, "ingestion_rate", data.defaults)} unit="/s" /></td>
              <td class="num" title="data points received on /otlp/v1/metrics since the metrics store started">
                {fmt.number(v.stats?.otlpDataPoints ?? 0)} {v.stats?.otlpDataPoints === 1 ? "data point" : "data points"}
              </td>
              <td title={v.stats?.oldestSample ?? ""}>{v.stats?.oldestSample ? fmt.ago(v.stats.oldestSample) : "–"}</td>
              <td>{fmt.retention(v.stats?.retentionPeriod)}</td>
              <td>{v.source}</td>
              <td><TenantPolicies policies={policies} tenant={v.name} /></td>
              <td class="row-actions"><Button onClick={() => setEditing(v)} aria-label={`Edit ${v.name}`}>Edit</Button></td>
            </tr>
          ))}
        </DataTable>
      )}
      {data && current && <TenantDetail v={current} data={data} />}
      {editing && (
        <TenantForm
          store={props.topo.metrics}
          tenant={editing === "new" ? undefined : editing}
          {...defaultsOf(props.topo)}
          onClose={() => setEditing(undefined)}
          onSaved={tenants.reload}
        />
      )}
    </>
  );
}

function TenantDetail({ v, data }: { v: TenantView; data: TenantsData }) {
  const limit = (n: Parameters<typeof limitOf>[1]) => limitOf(v, n, data.defaults);
  return (
    <article class="card detail" aria-labelledby="tenant-detail-title">
      <h2 id="tenant-detail-title">{v.name}{v.display_name ? ` — ${v.display_name}` : ""}</h2>
      <p class="muted">Created {fmt.dateTime(v.created_at)} · limits from {v.source}</p>
      <div class="grid two">
        <div>
          <Meter label="Active series" value={v.stats?.numSeries} limit={limit("max_global_series_per_user")} />
          <Meter label="Ingestion rate" value={v.stats?.ingestionRate} limit={limit("ingestion_rate")} unit="/s" />
          <dl class="facts compact">
            <dt>Burst size</dt><dd>{fmt.number(limit("ingestion_burst_size"))}</dd>
            <dt>Series per metric</dt><dd>{fmt.number(limit("max_global_series_per_metric"))}</dd>
            <dt>Series per query</dt><dd>{limit("max_series_per_query") || "no limit"}</dd>
            <dt>Rule groups × rules</dt><dd>{limit("ruler_max_rule_groups_per_tenant")} × {limit("ruler_max_rules_per_rule_group")}</dd>
            <dt>Retention</dt><dd>{fmt.retention(v.stats?.retentionPeriod)}</dd>
            <dt>Oldest sample</dt><dd>{v.stats?.oldestSample ? `${fmt.dateTime(v.stats.oldestSample)} (${fmt.ago(v.stats.oldestSample)})` : "none held"}</dd>
            <dt>Last retention run</dt><dd>{data.lastRetentionRun ? fmt.dateTime(data.lastRetentionRun) : "not since the metrics store started"}</dd>
            <dt>Over OTLP</dt>
            <dd title="since the metrics store started">
              {fmt.number(v.stats?.otlpRequests ?? 0)} requests, {fmt.number(v.stats?.otlpDataPoints ?? 0)} data points, {fmt.number(v.stats?.otlpSamples ?? 0)} samples stored
            </dd>
          </dl>
        </div>
        <div>
          <h3>Discarded samples by reason</h3>
          <Bars label={`Discarded samples of ${v.name} by reason`} items={v.discards} empty="Nothing discarded since the server started." />
        </div>
      </div>
    </article>
  );
}
