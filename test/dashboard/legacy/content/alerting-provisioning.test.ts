// The real product's alerting provisioning API (/api/v1/provisioning/...):
// alert rules and rule groups, contact points (secure settings redacted and
// sealed), the notification policy tree, mute timings and templates; their
// status codes, messages, provenance (X-Disable-Provenance), permissions and
// organizations. Objects are kept, nothing is evaluated or delivered.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const P = "/api/v1/provisioning";
const FOLDERS = "/apis/folder.svc.app/v1/namespaces/default/folders";
const NO_PROVENANCE = { "X-Disable-Provenance": "true" };

const rule = (extra: Record<string, unknown> = {}) => ({
  title: "Node down", ruleGroup: "nodes", folderUID: "alerting-f", condition: "A",
  data: [{ refId: "A", datasourceUid: "prom", relativeTimeRange: { from: 600, to: 0 }, model: { expr: "up == 0" } }],
  ...extra,
});

describe("alerting provisioning", () => {
  const t = useServer();
  beforeAll(async () => {
    const f = await t.api.post(FOLDERS, { auth: ADMIN, body: { metadata: { name: "alerting-f" }, spec: { title: "Alerting" } } });
    expect(f.status).toBe(201);
  });

  describe("alert rules", () => {
    it("create answers the full rule with the real product's defaults; get, list and update return what was written", async () => {
      const created = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ annotations: { summary: "down" }, labels: { team: "ops" } }) });
      expect(created.status).toBe(201);
      const uid = created.body.uid as string;
      expect(created.body).toMatchObject({
        orgID: 1, folderUID: "alerting-f", ruleGroup: "nodes", title: "Node down", condition: "A",
        noDataState: "NoData", execErrState: "Alerting", for: "0s", isPaused: false, provenance: "api",
        annotations: { summary: "down" }, labels: { team: "ops" }, notification_settings: null, record: null,
      });
      expect(created.body.id).toBeGreaterThan(0);
      expect(created.body.data).toEqual([{ refId: "A", queryType: "", datasourceUid: "prom", relativeTimeRange: { from: 600, to: 0 }, model: { expr: "up == 0" } }]);
      expect(Date.parse(created.body.updated)).toBeGreaterThan(0);
      const got = await t.api.get(`${P}/alert-rules/${uid}`, { auth: ADMIN });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(created.body);
      expect((await t.api.get(`${P}/alert-rules`, { auth: ADMIN })).body.map((r: { uid: string }) => r.uid)).toContain(uid);

      const updated = await t.api.put(`${P}/alert-rules/${uid}`, { auth: ADMIN, body: rule({ title: "Node still down", for: "300s", noDataState: "OK", execErrState: "Error", isPaused: true }) });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ uid, id: created.body.id, title: "Node still down", for: "5m", noDataState: "OK", execErrState: "Error", isPaused: true });
      expect(updated.body.annotations).toBeUndefined();
      expect((await t.api.get(`${P}/alert-rules/${uid}`, { auth: ADMIN })).body.title).toBe("Node still down");
    });

    it("bad input is a 400 in the real product's words; an unknown rule a 404; delete 204", async () => {
      const bad = async (body: unknown) => {
        const r = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body });
        return { status: r.status, message: r.body?.message as string };
      };
      expect(await bad(rule({ execErrState: "Bogus" }))).toEqual({ status: 400, message: "invalid alert rule: unknown Error state option Bogus" });
      expect(await bad(rule({ noDataState: "Never" }))).toEqual({ status: 400, message: "invalid alert rule: unknown NoData state option Never" });
      expect(await bad(rule({ folderUID: "no-such-folder" }))).toEqual({ status: 400, message: "invalid alert rule: folder does not exist" });
      expect(await bad(rule({ folderUID: "" }))).toEqual({ status: 400, message: "invalid alert rule: folderUID must be set" });
      expect(await bad(rule({ data: [] }))).toEqual({ status: 400, message: "invalid alert rule: no queries or expressions are found" });
      expect(await bad(rule({ title: "" }))).toEqual({ status: 400, message: "invalid alert rule: title is empty" });
      expect(await bad(rule({ uid: "bad uid!" }))).toEqual({
        status: 400, message: "invalid alert rule: cannot create rule with UID 'bad uid!': invalid format of UID. Only letters, numbers, '-' and '_' are allowed",
      });
      expect((await bad(rule({ for: "soon" }))).message).toBe('bad request data: for is not a valid duration string: "soon"');
      expect((await bad(rule({ title: 42 }))).message).toContain("title must be a string");
      expect((await bad(rule({ labels: { __alert_rule_uid__: "x" } }))).message).toBe("invalid alert rule: system reserved label __alert_rule_uid__ cannot be defined");
      expect((await bad(rule({ notification_settings: { receiver: "nobody" } }))).message).toBe("invalid alert rule: invalid notification settings: receiver 'nobody' does not exist");

      const missing = await t.api.get(`${P}/alert-rules/nope`, { auth: ADMIN });
      expect(missing.status).toBe(404);
      expect((await t.api.put(`${P}/alert-rules/nope`, { auth: ADMIN, body: rule() })).status).toBe(404);
      const created = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ uid: "ar-delete-me" }) });
      expect(created.status).toBe(201);
      expect((await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ uid: "ar-delete-me" }) })).status).toBe(409);
      expect((await t.api.delete(`${P}/alert-rules/ar-delete-me`, { auth: ADMIN })).status).toBe(204);
      expect((await t.api.get(`${P}/alert-rules/ar-delete-me`, { auth: ADMIN })).status).toBe(404);
      // deleting what is not there is no error, as in the real product
      expect((await t.api.delete(`${P}/alert-rules/ar-delete-me`, { auth: ADMIN })).status).toBe(204);
    });

    it("provenance: api by default, none with X-Disable-Provenance; a provisioned rule is not changed or deleted as editable", async () => {
      const api = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ uid: "ar-prov-api" }) });
      expect(api.body.provenance).toBe("api");
      const refused = await t.api.put(`${P}/alert-rules/ar-prov-api`, { auth: ADMIN, headers: NO_PROVENANCE, body: rule({ title: "x" }) });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("cannot change provenance from 'api' to ''");
      const notDeleted = await t.api.delete(`${P}/alert-rules/ar-prov-api`, { auth: ADMIN, headers: NO_PROVENANCE });
      expect(notDeleted.status).toBe(403);
      expect(notDeleted.body.message).toBe("cannot delete with provided provenance '', needs 'api'");
      expect((await t.api.get(`${P}/alert-rules/ar-prov-api`, { auth: ADMIN })).body.title).toBe("Node down");

      const editable = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, headers: NO_PROVENANCE, body: rule({ uid: "ar-prov-none" }) });
      expect(editable.status).toBe(201);
      expect(editable.body.provenance).toBe("");
      const taken = await t.api.put(`${P}/alert-rules/ar-prov-none`, { auth: ADMIN, body: rule({ title: "now provisioned" }) });
      expect(taken.status).toBe(200);
      expect(taken.body.provenance).toBe("api");
    });

    it("notification settings name an existing contact point, which then cannot be deleted", async () => {
      await t.api.post(`${P}/contact-points`, { auth: ADMIN, body: { uid: "cp-ruled", name: "ruled", type: "email", settings: { addresses: "r@b.test" } } });
      const settings = { receiver: "ruled", group_by: ["alertname", "grafana_folder", "env"], group_wait: "30s" };
      const created = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ uid: "ar-ruled", notification_settings: settings }) });
      expect(created.status).toBe(201);
      expect(created.body.notification_settings).toEqual(settings);
      const badGroup = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ notification_settings: { receiver: "ruled", group_by: ["env"] } }) });
      expect(badGroup.body.message).toBe("invalid alert rule: invalid notification settings: group by override must contain two required labels: 'alertname' and 'grafana_folder'");
      const used = await t.api.delete(`${P}/contact-points/cp-ruled`, { auth: ADMIN });
      expect(used.status).toBe(409);
      expect(used.body.messageId).toBe("alerting.notifications.contact-points.used-by-rule");
      expect((await t.api.delete(`${P}/alert-rules/ar-ruled`, { auth: ADMIN })).status).toBe(204);
      expect((await t.api.delete(`${P}/contact-points/cp-ruled`, { auth: ADMIN })).status).toBe(202);
    });

    it("export: the rule in the provisioning file format, JSON when asked, YAML by default", async () => {
      await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ uid: "ar-export", for: "1m" }) });
      const json = await t.api.get(`${P}/alert-rules/ar-export/export?format=json`, { auth: ADMIN });
      expect(json.status).toBe(200);
      expect(json.body.apiVersion).toBe(1);
      expect(json.body.groups[0]).toMatchObject({ orgId: 1, name: "nodes", folder: "Alerting", interval: "1m" });
      expect(json.body.groups[0].rules[0]).toMatchObject({ uid: "ar-export", title: "Node down", condition: "A", for: "1m", noDataState: "NoData" });
      const yaml = await t.api.get(`${P}/alert-rules/ar-export/export`, { auth: ADMIN, headers: { Accept: "application/yaml" } });
      expect(yaml.headers.get("content-type")).toContain("yaml");
      expect(String(yaml.body)).toContain("uid: ar-export");
      expect((await t.api.get(`${P}/alert-rules/nope/export`, { auth: ADMIN })).status).toBe(404);
    });
  });

  describe("rule groups", () => {
    const GROUP = `${P}/folder/alerting-f/rule-groups/disks`;

    it("PUT replaces the group's rules and interval; GET reads it; rules added later take its interval; DELETE removes it", async () => {
      const put = await t.api.put(GROUP, {
        auth: ADMIN,
        body: { interval: 120, rules: [rule({ uid: "g-one", title: "Disk full" }), rule({ uid: "g-two", title: "Disk slow", for: "10m" })] },
      });
      expect(put.status).toBe(200);
      const got = await t.api.get(GROUP, { auth: ADMIN });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ title: "disks", folderUid: "alerting-f", interval: 120 });
      expect(got.body.rules.map((r: { uid: string; ruleGroup: string }) => [r.uid, r.ruleGroup])).toEqual([["g-one", "disks"], ["g-two", "disks"]]);
      expect(got.body.rules[1].for).toBe("10m");

      const later = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ ruleGroup: "disks", title: "Disk gone" }) });
      expect(later.status).toBe(201);
      expect((await t.api.get(GROUP, { auth: ADMIN })).body.rules.map((r: { uid: string }) => r.uid)).toEqual(["g-one", "g-two", later.body.uid]);

      // what the PUT does not name goes; the interval changes for all
      const again = await t.api.put(GROUP, { auth: ADMIN, body: { interval: 60, rules: [rule({ uid: "g-two", title: "Disk slow" })] } });
      expect(again.status).toBe(200);
      expect(again.body.rules.map((r: { uid: string }) => r.uid)).toEqual(["g-two"]);
      expect(again.body.interval).toBe(60);
      expect((await t.api.get(`${P}/alert-rules/g-one`, { auth: ADMIN })).status).toBe(404);

      expect((await t.api.delete(GROUP, { auth: ADMIN })).status).toBe(204);
      const gone = await t.api.get(GROUP, { auth: ADMIN });
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ message: "Not found", messageId: "alerting.alert-rule.notFound", statusCode: 404 });
      expect((await t.api.delete(GROUP, { auth: ADMIN })).status).toBe(404);
    });

    it("an interval the scheduler cannot take, a missing folder, a bad rule: 400", async () => {
      const bad = await t.api.put(GROUP, { auth: ADMIN, body: { interval: 15, rules: [rule()] } });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe("invalid alert rule: interval (15s) should be non-zero and divided exactly by scheduler interval: 10");
      const none = await t.api.put(GROUP, { auth: ADMIN, body: { rules: [rule()] } });
      expect(none.body.message).toBe("invalid alert rule: interval (0s) should be non-zero and divided exactly by scheduler interval: 10");
      const folder = await t.api.put(`${P}/folder/nope/rule-groups/g`, { auth: ADMIN, body: { interval: 60, rules: [rule()] } });
      expect(folder.status).toBe(400);
      expect(folder.body.message).toBe("invalid alert rule: folder does not exist");
      const typed = await t.api.put(GROUP, { auth: ADMIN, body: { interval: 60, rules: [rule({ isPaused: "yes" })] } });
      expect(typed.status).toBe(400);
      expect(typed.body.message).toContain("rules[0]: isPaused must be boolean");
    });
  });

  describe("contact points", () => {
    const exportJson = async () => {
      const r = await t.api.get(`${P}/contact-points/export?decrypt=true&format=json`, { auth: ADMIN });
      expect(r.status).toBe(200);
      return r.body.contactPoints as Array<{ name: string; receivers: Array<{ uid: string; settings: Record<string, unknown> }> }>;
    };

    it("a new organization has the default email contact point and policy", async () => {
      const list = await t.api.get(`${P}/contact-points?name=grafana-default-email`, { auth: ADMIN });
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(1);
      expect(list.body[0]).toMatchObject({ name: "grafana-default-email", type: "email", settings: { addresses: "<example@email.com>" }, disableResolveMessage: false });
    });

    it("secure settings read as [REDACTED], are sealed, and [REDACTED] written back keeps them", async () => {
      const created = await t.api.post(`${P}/contact-points`, {
        auth: ADMIN,
        body: { uid: "cp-slack", name: "ops-slack", type: "slack", settings: { recipient: "#ops", token: "xoxb-secret", url: "https://hooks.slack.test/T1", username: "bot" } },
      });
      expect(created.status).toBe(202);
      expect(created.body).toEqual({
        uid: "cp-slack", name: "ops-slack", type: "slack", disableResolveMessage: false, provenance: "api",
        settings: { recipient: "#ops", username: "bot", token: "[REDACTED]", url: "[REDACTED]" },
      });
      const listed = (await t.api.get(`${P}/contact-points?name=ops-slack`, { auth: ADMIN })).body;
      expect(listed).toEqual([created.body]);
      expect(JSON.stringify(listed)).not.toContain("xoxb-secret");
      const plain = (await exportJson()).find((cp) => cp.name === "ops-slack")!.receivers[0]!;
      expect(plain.settings).toMatchObject({ token: "xoxb-secret", url: "https://hooks.slack.test/T1" });
      // export without decrypt stays redacted
      expect(JSON.stringify((await t.api.get(`${P}/contact-points/export?format=json`, { auth: ADMIN })).body)).not.toContain("xoxb-secret");

      const kept = await t.api.put(`${P}/contact-points/cp-slack`, {
        auth: ADMIN, body: { name: "ops-slack", type: "slack", settings: { recipient: "#ops2", token: "[REDACTED]", url: "[REDACTED]" } },
      });
      expect(kept.status).toBe(202);
      expect(kept.body).toEqual({ message: "contactpoint updated" });
      expect((await exportJson()).find((cp) => cp.name === "ops-slack")!.receivers[0]!.settings).toMatchObject({ recipient: "#ops2", token: "xoxb-secret" });

      await t.api.put(`${P}/contact-points/cp-slack`, { auth: ADMIN, body: { name: "ops-slack", type: "slack", settings: { recipient: "#ops2", token: "xoxb-new" } } });
      const now = (await exportJson()).find((cp) => cp.name === "ops-slack")!.receivers[0]!.settings;
      expect(now.token).toBe("xoxb-new");
      // a secure field left out is gone, as in the real product
      expect(now.url).toBeUndefined();
    });

    it("each type's secure fields: webhook password and nested TLS key, telegram bot token, pagerduty key; email has none", async () => {
      const post = (name: string, type: string, settings: Record<string, unknown>) => t.api.post(`${P}/contact-points`, { auth: ADMIN, body: { name, type, settings } });
      const hook = await post("hook", "webhook", { url: "http://hooks.test/x", username: "u", password: "pw", tlsConfig: { clientKey: "KEY", insecureSkipVerify: true } });
      expect(hook.body.settings).toEqual({ url: "http://hooks.test/x", username: "u", password: "[REDACTED]", tlsConfig: { clientKey: "[REDACTED]", insecureSkipVerify: true } });
      expect((await post("tg", "telegram", { bottoken: "123:abc", chatid: "-100" })).body.settings).toEqual({ bottoken: "[REDACTED]", chatid: "-100" });
      expect((await post("pd", "pagerduty", { integrationKey: "pd-key", severity: "critical" })).body.settings).toEqual({ integrationKey: "[REDACTED]", severity: "critical" });
      expect((await post("mail", "email", { addresses: "a@example.test" })).body.settings).toEqual({ addresses: "a@example.test" });
    });

    it("invalid contact points: 400 in the real product's words; an unknown uid 404", async () => {
      const post = async (body: unknown) => {
        const r = await t.api.post(`${P}/contact-points`, { auth: ADMIN, body });
        return { status: r.status, message: r.body?.message as string };
      };
      expect(await post({ name: "w", type: "webhook", settings: {} })).toEqual({
        status: 400, message: 'invalid object specification: failed to validate integration "w" (UID ) of type "webhook": required field \'url\' is not specified',
      });
      expect((await post({ name: "e", type: "email", settings: {} })).message).toContain("could not find addresses in settings");
      expect((await post({ name: "t", type: "telegram", settings: { bottoken: "x" } })).message).toContain("could not find Chat Id in settings");
      expect((await post({ name: "s", type: "slack", settings: { recipient: "#a" } })).message).toContain("token must be specified when using the Slack chat API");
      expect(await post({ name: "x", type: "", settings: {} })).toEqual({ status: 400, message: "invalid object specification: type should not be an empty string" });
      expect(await post({ name: "x", type: "email" })).toEqual({ status: 400, message: "invalid object specification: settings should not be empty" });
      expect((await post({ name: "x", type: "carrier-pigeon", settings: {} })).message).toContain("notifier carrier-pigeon is not supported");
      expect((await post({ name: "x", type: "email", settings: "addresses" })).message).toContain("settings must be an object");
      expect((await post({ type: "email", settings: { addresses: "a@b.test" } })).message).toContain("name must be a string");
      const put = await t.api.put(`${P}/contact-points/nope`, { auth: ADMIN, body: { name: "x", type: "email", settings: { addresses: "a@b.test" } } });
      expect(put.status).toBe(404);
      expect(put.body.message).toBe("object not found: contact point with uid 'nope' not found");
    });

    it("provenance: a provisioned contact point is not changed as editable; one made editable may be taken over", async () => {
      await t.api.post(`${P}/contact-points`, { auth: ADMIN, body: { uid: "cp-prov", name: "prov", type: "email", settings: { addresses: "a@b.test" } } });
      const refused = await t.api.put(`${P}/contact-points/cp-prov`, { auth: ADMIN, headers: NO_PROVENANCE, body: { name: "prov", type: "email", settings: { addresses: "c@d.test" } } });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("cannot change provenance from 'api' to ''");
      const editable = await t.api.post(`${P}/contact-points`, { auth: ADMIN, headers: NO_PROVENANCE, body: { uid: "cp-ui", name: "ui", type: "email", settings: { addresses: "a@b.test" } } });
      expect(editable.body.provenance).toBe("");
      expect((await t.api.put(`${P}/contact-points/cp-ui`, { auth: ADMIN, body: { name: "ui", type: "email", settings: { addresses: "e@f.test" } } })).status).toBe(202);
      expect((await t.api.get(`${P}/contact-points?name=ui`, { auth: ADMIN })).body[0]).toMatchObject({ provenance: "api", settings: { addresses: "e@f.test" } });
    });
  });

  describe("notification policies, mute timings and templates", () => {
    it("PUT policies: receivers and mute timings must exist; the tree reads back as written; DELETE resets to the default", async () => {
      const missing = await t.api.put(`${P}/policies`, { auth: ADMIN, body: { receiver: "grafana-default-email", routes: [{ receiver: "nobody" }] } });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toBe("invalid object specification: receiver 'nobody' does not exist");
      const noRoot = await t.api.put(`${P}/policies`, { auth: ADMIN, body: { group_by: ["alertname"] } });
      expect(noRoot.body.message).toBe("invalid object specification: root route must specify a default receiver");
      const timing = await t.api.put(`${P}/policies`, { auth: ADMIN, body: { receiver: "grafana-default-email", routes: [{ receiver: "grafana-default-email", mute_time_intervals: ["nope"] }] } });
      expect(timing.body.message).toBe("invalid object specification: mute time interval 'nope' does not exist");
      const duration = await t.api.put(`${P}/policies`, { auth: ADMIN, body: { receiver: "grafana-default-email", routes: [{ group_wait: "soon" }] } });
      expect(duration.status).toBe(400);
      expect(duration.body.message).toContain("routes[0].group_wait");

      await t.api.post(`${P}/contact-points`, { auth: ADMIN, body: { uid: "cp-routed", name: "routed", type: "email", settings: { addresses: "r@b.test" } } });
      await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body: { name: "nights", time_intervals: [{ times: [{ start_time: "22:00", end_time: "24:00" }] }] } });
      const tree = {
        receiver: "grafana-default-email", group_by: ["grafana_folder", "alertname"], group_wait: "30s",
        routes: [{ receiver: "routed", object_matchers: [["team", "=", "ops"]], mute_time_intervals: ["nights"], continue: true }],
      };
      const put = await t.api.put(`${P}/policies`, { auth: ADMIN, body: tree });
      expect(put.status).toBe(202);
      expect(put.body).toEqual({ message: "policies updated" });
      expect((await t.api.get(`${P}/policies`, { auth: ADMIN })).body).toEqual({ ...tree, provenance: "api" });

      const referenced = await t.api.delete(`${P}/contact-points/cp-routed`, { auth: ADMIN });
      expect(referenced.status).toBe(409);
      expect(referenced.body).toMatchObject({ messageId: "alerting.notifications.contact-points.referenced", message: "Contact point is currently referenced by a notification policy." });
      const used = await t.api.delete(`${P}/mute-timings/nights`, { auth: ADMIN });
      expect(used.status).toBe(409);
      expect(used.body.messageId).toBe("alerting.notifications.time-intervals.used");

      const editable = await t.api.put(`${P}/policies`, { auth: ADMIN, headers: NO_PROVENANCE, body: tree });
      expect(editable.status).toBe(403);
      expect(editable.body.messageId).toBe("alerting.notifications.invalidProvenance");

      // renaming a contact point or a mute timing renames it in the tree
      expect((await t.api.put(`${P}/contact-points/cp-routed`, { auth: ADMIN, body: { name: "routed2", type: "email", settings: { addresses: "r@b.test" } } })).status).toBe(202);
      expect((await t.api.put(`${P}/mute-timings/nights`, { auth: ADMIN, body: { name: "nights2", time_intervals: [] } })).status).toBe(202);
      expect((await t.api.get(`${P}/policies`, { auth: ADMIN })).body.routes[0]).toMatchObject({ receiver: "routed2", mute_time_intervals: ["nights2"] });

      const reset = await t.api.delete(`${P}/policies`, { auth: ADMIN });
      expect(reset.status).toBe(202);
      expect(reset.body).toEqual({ receiver: "grafana-default-email", group_by: ["grafana_folder", "alertname"] });
      expect((await t.api.get(`${P}/policies`, { auth: ADMIN })).body).toEqual({ ...reset.body, provenance: "" });
      const deleted = await t.api.delete(`${P}/contact-points/cp-routed`, { auth: ADMIN });
      expect(deleted.status).toBe(202);
      expect(deleted.body).toEqual({ message: "contactpoint deleted" });
      expect((await t.api.get(`${P}/contact-points?name=routed2`, { auth: ADMIN })).body).toEqual([]);
    });

    it("mute timings: create 201, duplicates and invalid intervals 400, version conflicts 409, update 202, delete 204, 404 when missing", async () => {
      const body = { name: "weekends", time_intervals: [{ weekdays: ["saturday", "sunday"], location: "Europe/Paris" }] };
      const created = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ ...body, provenance: "api" });
      expect(created.body.version).toMatch(/^[0-9a-f]{16}$/);
      const dup = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body });
      expect(dup.status).toBe(400);
      expect(dup.body).toMatchObject({ messageId: "alerting.notifications.time-intervals.nameExists" });
      const invalid = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body: { name: "bad", time_intervals: [{ times: [{ start_time: "25:00", end_time: "26:00" }] }] } });
      expect(invalid.status).toBe(400);
      expect(invalid.body.messageId).toBe("alerting.notifications.time-intervals.invalidFormat");
      expect(invalid.body.message).toContain("time_intervals[0].times[0].start_time");
      const weekday = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body: { name: "bad", time_intervals: [{ weekdays: ["funday"] }] } });
      expect(weekday.body.message).toContain('time_intervals[0].weekdays[0]: "funday" is not a valid weekday');
      const zone = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body: { name: "bad", time_intervals: [{ location: "Mars/Olympus" }] } });
      expect(zone.body.message).toContain("time_intervals[0].location: unknown time zone Mars/Olympus");
      const backwards = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body: { name: "bad", time_intervals: [{ weekdays: ["saturday:sunday"] }] } });
      expect(backwards.status).toBe(400);

      expect((await t.api.get(`${P}/mute-timings/weekends`, { auth: ADMIN })).body).toEqual(created.body);
      const missing = await t.api.get(`${P}/mute-timings/nope`, { auth: ADMIN });
      expect(missing.status).toBe(404);
      expect(missing.body.messageId).toBe("alerting.notifications.time-intervals.notFound");

      const stale = await t.api.put(`${P}/mute-timings/weekends`, { auth: ADMIN, body: { ...body, version: "0000000000000000" } });
      expect(stale.status).toBe(409);
      expect(stale.body.messageId).toBe("alerting.notifications.conflict");
      const changed = { name: "weekends", time_intervals: [{ weekdays: ["monday:friday"], months: ["1:3"] }], version: created.body.version };
      const updated = await t.api.put(`${P}/mute-timings/weekends`, { auth: ADMIN, body: changed });
      expect(updated.status).toBe(202);
      expect(updated.body.time_intervals).toEqual(changed.time_intervals);
      expect(updated.body.version).not.toBe(created.body.version);
      expect((await t.api.put(`${P}/mute-timings/nope`, { auth: ADMIN, body })).status).toBe(404);

      const list = await t.api.get(`${P}/mute-timings`, { auth: ADMIN });
      expect(list.body.map((m: { name: string }) => m.name)).toContain("weekends");
      expect((await t.api.delete(`${P}/mute-timings/weekends`, { auth: ADMIN })).status).toBe(204);
      expect((await t.api.get(`${P}/mute-timings/weekends`, { auth: ADMIN })).status).toBe(404);
    });

    it("mute timings and templates: the relaxed provenance rule (nothing provisioned goes back to editable)", async () => {
      await t.api.post(`${P}/mute-timings`, { auth: ADMIN, body: { name: "prov-api", time_intervals: [] } });
      const refused = await t.api.put(`${P}/mute-timings/prov-api`, { auth: ADMIN, headers: NO_PROVENANCE, body: { time_intervals: [] } });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        messageId: "alerting.notifications.invalidProvenance", statusCode: 403,
        message: "Resource with provenance status 'api' cannot be managed via API that handles resources with provenance status 'none'. You must use appropriate API to manage this resource",
      });
      expect((await t.api.delete(`${P}/mute-timings/prov-api`, { auth: ADMIN, headers: NO_PROVENANCE })).status).toBe(403);
      const editable = await t.api.post(`${P}/mute-timings`, { auth: ADMIN, headers: NO_PROVENANCE, body: { name: "prov-none", time_intervals: [] } });
      expect(editable.body.provenance).toBe("");
      const takenOver = await t.api.put(`${P}/mute-timings/prov-none`, { auth: ADMIN, body: { time_intervals: [] } });
      expect(takenOver.status).toBe(202);
      expect(takenOver.body.provenance).toBe("api");

      await t.api.put(`${P}/templates/prov-t`, { auth: ADMIN, body: { template: "{{ define \"prov-t\" }}x{{ end }}" } });
      const t403 = await t.api.put(`${P}/templates/prov-t`, { auth: ADMIN, headers: NO_PROVENANCE, body: { template: "{{ define \"prov-t\" }}y{{ end }}" } });
      expect(t403.status).toBe(403);
      expect(t403.body.messageId).toBe("alerting.notifications.invalidProvenance");
    });

    it("templates: PUT creates or replaces (202), content without define is wrapped, invalid content 400, GET 404 when missing, DELETE 204", async () => {
      const put = await t.api.put(`${P}/templates/slack.title`, { auth: ADMIN, body: { template: "{{ .CommonLabels.alertname }} fired" } });
      expect(put.status).toBe(202);
      expect(put.body).toMatchObject({ name: "slack.title", provenance: "api", template: '{{ define "slack.title" }}\n  {{ .CommonLabels.alertname }} fired\n{{ end }}' });
      const own = '{{ define "mine" }}hello{{ end }}';
      const replaced = await t.api.put(`${P}/templates/slack.title`, { auth: ADMIN, body: { template: own, version: put.body.version } });
      expect(replaced.status).toBe(202);
      expect(replaced.body.template).toBe(own);
      expect((await t.api.get(`${P}/templates/slack.title`, { auth: ADMIN })).body).toEqual(replaced.body);
      expect((await t.api.get(`${P}/templates`, { auth: ADMIN })).body.map((x: { name: string }) => x.name)).toContain("slack.title");
      const stale = await t.api.put(`${P}/templates/slack.title`, { auth: ADMIN, body: { template: own, version: "0000000000000000" } });
      expect(stale.status).toBe(409);

      const empty = await t.api.put(`${P}/templates/empty`, { auth: ADMIN, body: { template: "" } });
      expect(empty.status).toBe(400);
      expect(empty.body).toMatchObject({ messageId: "alerting.notifications.templates.invalidFormat" });
      expect(empty.body.message).toContain("template must have content");
      const unclosed = await t.api.put(`${P}/templates/broken`, { auth: ADMIN, body: { template: "{{ define \"broken\" }}{{ .x" } });
      expect(unclosed.status).toBe(400);
      expect(unclosed.body.message).toContain("unclosed action");
      const missing = await t.api.get(`${P}/templates/nope`, { auth: ADMIN });
      expect(missing.status).toBe(404);
      expect(missing.body.messageId).toBe("alerting.notifications.templates.notFound");
      expect((await t.api.delete(`${P}/templates/slack.title`, { auth: ADMIN })).status).toBe(204);
      expect((await t.api.get(`${P}/templates/slack.title`, { auth: ADMIN })).status).toBe(404);
    });
  });

  describe("permissions and organizations", () => {
    it("a Viewer reads notification objects but writes none; an Editor cannot use the provisioning writes either", async () => {
      const viewer = await t.api.user("alerting-viewer", "Viewer");
      const editor = await t.api.user("alerting-editor", "Editor");
      expect((await t.api.get(`${P}/contact-points`, { auth: viewer.auth })).status).toBe(200);
      expect(JSON.stringify((await t.api.get(`${P}/contact-points`, { auth: viewer.auth })).body)).not.toContain("xoxb");
      expect((await t.api.get(`${P}/alert-rules`, { auth: viewer.auth })).status).toBe(200);
      for (const auth of [viewer.auth, editor.auth]) {
        const writes = [
          await t.api.post(`${P}/contact-points`, { auth, body: { name: "v", type: "email", settings: { addresses: "a@b.test" } } }),
          await t.api.post(`${P}/alert-rules`, { auth, body: rule() }),
          await t.api.put(`${P}/folder/alerting-f/rule-groups/v`, { auth, body: { interval: 60, rules: [] } }),
          await t.api.put(`${P}/policies`, { auth, body: { receiver: "grafana-default-email" } }),
          await t.api.delete(`${P}/policies`, { auth }),
          await t.api.post(`${P}/mute-timings`, { auth, body: { name: "v", time_intervals: [] } }),
          await t.api.put(`${P}/templates/v`, { auth, body: { template: "x" } }),
        ];
        expect(writes.map((w) => w.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
      }
      expect((await t.api.get(`${P}/contact-points/export?decrypt=true`, { auth: viewer.auth })).status).toBe(403);
      expect((await t.api.get(`${P}/contact-points?name=v`, { auth: ADMIN })).body).toEqual([]);
    });

    it("another organization sees only its own objects (X-Svc-Org-Id)", async () => {
      const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Alerting Org 2" } });
      expect(org.status).toBe(200);
      const headers = { "X-Svc-Org-Id": String(org.body.orgId) };
      await t.api.post(`${P}/contact-points`, { auth: ADMIN, body: { uid: "cp-org1", name: "org1-only", type: "email", settings: { addresses: "o@b.test" } } });
      await t.api.post(`${P}/alert-rules`, { auth: ADMIN, body: rule({ uid: "ar-org1" }) });
      await t.api.put(`${P}/templates/org1-template`, { auth: ADMIN, body: { template: "x" } });

      const cps = await t.api.get(`${P}/contact-points`, { auth: ADMIN, headers });
      expect(cps.status).toBe(200);
      expect(cps.body.map((cp: { name: string }) => cp.name)).toEqual(["grafana-default-email"]);
      expect((await t.api.get(`${P}/alert-rules/ar-org1`, { auth: ADMIN, headers })).status).toBe(404);
      expect((await t.api.get(`${P}/alert-rules`, { auth: ADMIN, headers })).body).toEqual([]);
      expect((await t.api.get(`${P}/templates`, { auth: ADMIN, headers })).body).toEqual([]);
      expect((await t.api.put(`${P}/contact-points/cp-org1`, { auth: ADMIN, headers, body: { name: "x", type: "email", settings: { addresses: "a@b.test" } } })).status).toBe(404);
      // the same uid may be used in both organizations
      const folder = await t.api.post(`/apis/folder.svc.app/v1/namespaces/org-${org.body.orgId}/folders`, { auth: ADMIN, body: { metadata: { name: "alerting-f" }, spec: { title: "Org 2 alerting" } } });
      expect(folder.status).toBe(201);
      const same = await t.api.post(`${P}/alert-rules`, { auth: ADMIN, headers, body: rule({ uid: "ar-org1", title: "Org 2 rule" }) });
      expect(same.status).toBe(201);
      expect(same.body.orgID).toBe(org.body.orgId);
      expect((await t.api.get(`${P}/alert-rules/ar-org1`, { auth: ADMIN })).body.title).toBe("Node down");
    });
  });
});
