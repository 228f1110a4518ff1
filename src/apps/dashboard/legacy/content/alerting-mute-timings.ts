// /api/v1/provisioning/mute-timings: list, get, create (201), replace (202)
// and delete (204) named time intervals, as in the real product; a version
// given on a write must be the current one.
import { type } from "../../../../lib/arktype.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { MuteTimingStore } from "../../core/content/mute-timings.ts";
import { provenanceOf, routeDeleteByName } from "./alerting-shared.ts";

const TimingIn = type({ "name?": "string", "time_intervals?": "unknown[]", "version?": "string" });

export function registerMuteTimings(r: Router, deps: { muteTimings: MuteTimingStore }): void {
  const base = "/api/v1/provisioning/mute-timings";

  r.get(base, { action: "alert.notifications:read" }, async (c) => c.json(await deps.muteTimings.list(identityOf(c).orgId)));

  r.get(`${base}/:name`, { action: "alert.notifications:read" }, async (c) => c.json(await deps.muteTimings.get(identityOf(c).orgId, c.req.param("name")!)));

  r.post(base, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, TimingIn);
    return c.json(await deps.muteTimings.create(identityOf(c).orgId, body, provenanceOf(c)), 201);
  }, { body: TimingIn });

  r.put(`${base}/:name`, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, TimingIn);
    return c.json(await deps.muteTimings.update(identityOf(c).orgId, c.req.param("name")!, body, provenanceOf(c)), 202);
  }, { body: TimingIn, responses: { 409: "alerting.notifications.conflict: the version given is not the current one" } });

  routeDeleteByName(r, base, deps.muteTimings.delete);
}
