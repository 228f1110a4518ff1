// Two Outpost nodes on one PostgreSQL database: two updates of one object
// computed from the same version, sent to both nodes at once, are judged by
// the database, not by each node's copy in memory. Exactly one is written;
// the other gets what a stale version gets on one node (/apis: 409 Conflict
// Status; the legacy save: 412 version-mismatch), and the stored object is
// the winner's. Updates without a version (last write wins) are both written,
// one over the other, none lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, client } from "../helpers/api.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let pg: PostgresServer;
let url: string;
const nodes: TestServer[] = [];
const SECRET_KEY = "a-cluster-wide-secret-key-for-the-conflict-test";
const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const ROUNDS = 4;

beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase();
  for (let i = 0; i < 2; i++) nodes.push(await startTestServer({ "storage.database_url": url, "security.secret_key": SECRET_KEY }));
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await pg?.stop();
});

const api = (i: number) => client(nodes[i]!.urls.dashboard);

/** the stored row, read from the database itself */
async function stored(name: string): Promise<{ rv: string; title: string; generation: number }> {
  const db = new (await import("pg")).default.Client({ connectionString: url });
  await db.connect();
  try {
    const r = await db.query(
      "select resource_version::text as rv, object->'spec'->>'title' as title, (object->'metadata'->>'generation')::int as generation from resources where resource = 'dashboards' and name = $1",
      [name],
    );
    return r.rows[0];
  } finally {
    await db.end();
  }
}

/** both nodes answer the object at this resourceVersion */
async function bothAt(name: string, rv: string): Promise<void> {
  for (const i of [0, 1]) {
    expect(await pollUntil(async () => (await api(i).get(`${DASH}/${name}`, { auth: ADMIN })).body?.metadata?.resourceVersion === rv)).toBe(true);
  }
}

describe("two nodes, one object, two updates from the same version", () => {
  it("/apis PUT: one 200, one 409 Conflict; the stored object is the winner's", async () => {
    const made = await api(0).post(DASH, { auth: ADMIN, body: { metadata: { name: "race-apis" }, spec: { title: "v1" } } });
    expect(made.status).toBe(201);
    let current = made.body;
    await bothAt("race-apis", current.metadata.resourceVersion);
    for (let round = 0; round < ROUNDS; round++) {
      // both nodes hold `current`; each is sent an update of it, at once
      const replies = await Promise.all(
        [0, 1].map((i) => api(i).put(`${DASH}/race-apis`, { auth: ADMIN, body: { ...current, spec: { ...current.spec, title: `round ${round} from node ${i}` } } })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = replies.find((r) => r.status === 200)!;
      const loser = replies.find((r) => r.status === 409)!;
      expect(loser.body).toEqual({
        kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Conflict", code: 409,
        message: 'Operation cannot be fulfilled on dashboards.dashboard.svc.app "race-apis": the object has been modified; please apply your changes to the latest version and try again',
        details: { name: "race-apis", group: "dashboard.svc.app", kind: "dashboards" },
      });
      const row = await stored("race-apis");
      expect(row).toEqual({ rv: winner.body.metadata.resourceVersion, title: winner.body.spec.title, generation: current.metadata.generation + 1 });
      // the loser's node holds the winner's version at once (read again on the conflict), the winner's node too
      await bothAt("race-apis", row.rv);
      expect((await api(0).get(`${DASH}/race-apis`, { auth: ADMIN })).body).toEqual((await api(1).get(`${DASH}/race-apis`, { auth: ADMIN })).body);
      current = winner.body;
    }
    // the history has one version per round, no lost one
    const q = `?labelSelector=${encodeURIComponent("svc.app/get-history=true")}&fieldSelector=${encodeURIComponent("metadata.name=race-apis")}`;
    const history = (await api(1).get(DASH + q, { auth: ADMIN })).body;
    expect(history.items.map((i: { metadata: { generation: number } }) => i.metadata.generation)).toEqual(Array.from({ length: ROUNDS + 1 }, (_, i) => ROUNDS + 1 - i));
  });

  it("/apis PUT without a resourceVersion on both nodes: both written, one over the other", async () => {
    const made = await api(0).post(DASH, { auth: ADMIN, body: { metadata: { name: "lww-apis" }, spec: { title: "v1" } } });
    await bothAt("lww-apis", made.body.metadata.resourceVersion);
    const { resourceVersion: _rv, ...metadata } = made.body.metadata;
    const replies = await Promise.all(
      [0, 1].map((i) => api(i).put(`${DASH}/lww-apis`, { auth: ADMIN, body: { ...made.body, metadata, spec: { ...made.body.spec, title: `from node ${i}` } } })),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    // the second was computed again over the first: generations 2 and 3, the stored one is the last
    expect(replies.map((r) => r.body.metadata.generation).sort()).toEqual([2, 3]);
    const last = replies.find((r) => r.body.metadata.generation === 3)!;
    expect(await stored("lww-apis")).toEqual({ rv: last.body.metadata.resourceVersion, title: last.body.spec.title, generation: 3 });
  });

  it("legacy save of the same version: one 200, one 412 version-mismatch; the stored dashboard is the winner's", async () => {
    const first = await api(0).post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "race-legacy", title: "Race v1" } } });
    expect(first.status).toBe(200);
    let version = first.body.version as number;
    const versionOn = async (i: number) => (await api(i).get("/api/dashboards/uid/race-legacy", { auth: ADMIN })).body?.dashboard?.version;
    for (const i of [0, 1]) expect(await pollUntil(async () => (await versionOn(i)) === version)).toBe(true);
    for (let round = 0; round < ROUNDS; round++) {
      const replies = await Promise.all(
        [0, 1].map((i) => api(i).post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "race-legacy", title: `Race ${round} node ${i}`, version } } })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 412]);
      const winner = replies.findIndex((r) => r.status === 200);
      expect(replies[1 - winner]!.body).toEqual({ status: "version-mismatch", message: "The dashboard has been changed by someone else" });
      expect(replies[winner]!.body.version).toBe(version + 1);
      const row = await stored("race-legacy");
      expect(row).toMatchObject({ title: `Race ${round} node ${winner}`, generation: version + 1 });
      for (const i of [0, 1]) {
        expect(await pollUntil(async () => {
          const d = (await api(i).get("/api/dashboards/uid/race-legacy", { auth: ADMIN })).body?.dashboard;
          return d?.version === version + 1 && d?.title === `Race ${round} node ${winner}`;
        })).toBe(true);
      }
      version++;
    }
  });

  it("legacy save with overwrite on both nodes: both written, one over the other", async () => {
    const first = await api(0).post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "lww-legacy", title: "Lww v1" } } });
    for (const i of [0, 1]) {
      expect(await pollUntil(async () => (await api(i).get("/api/dashboards/uid/lww-legacy", { auth: ADMIN })).status === 200)).toBe(true);
    }
    const replies = await Promise.all(
      [0, 1].map((i) => api(i).post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "lww-legacy", title: `Lww node ${i}` }, overwrite: true } })),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(replies.map((r) => r.body.version).sort()).toEqual([first.body.version + 1, first.body.version + 2]);
    const last = replies.findIndex((r) => r.body.version === first.body.version + 2);
    expect(await stored("lww-legacy")).toMatchObject({ title: `Lww node ${last}`, generation: first.body.version + 2 });
  });
});
