// Attack probes (issue 16): each attack of the issue is sent once while the
// dashboard's /api/health, both stores' /ready and a push from another tenant
// are probed every 250 ms. Every probe must be answered (deadline 10 s: tests
// never assert tight timings; bench/attacks.ts measures against the 500 ms
// target) and the attack must get its right answer (a 4xx, 422 for the
// sample cap, 200 for a regex that runs in linear time). The server runs as a
// child process, restarted after an attack that leaves it unable to answer.
import { describe, expect, it } from "vitest";
import { ATTACKS, sendAttack, startProbing } from "./support/attacks.ts";
import { unhealthy, useTarget } from "./support/target.ts";

const PROBE_DEADLINE_MS = 10_000;
const ATTACK_DEADLINE_MS = 60_000;

describe("attack probes: every listener and tenant keeps answering during each attack", () => {
  const t = useTarget();

  for (const attack of ATTACKS) {
    it(`${attack.name} -> ${attack.expect.join(" or ")}, probes answered`, async () => {
      const target = t.target;
      if ((await unhealthy(target)).length > 0) await target.restart();
      const urls = { dashboard: target.url("dashboard"), logs: target.url("logs"), metrics: target.url("metrics") };
      await attack.setup?.(urls);
      const probing = startProbing(urls, { everyMs: 250, deadlineMs: PROBE_DEADLINE_MS });
      const answer = await sendAttack(urls, attack, ATTACK_DEADLINE_MS, probing.firstFailure);
      const probes = await probing.stop();
      const logged = target.takeErrors();
      const text = `${attack.name}: answer ${answer.status ?? answer.error} in ${Math.round(answer.ms)} ms ${answer.text ?? ""}; ` +
        `probes ${probes.sent}, max ${Math.round(probes.maxMs)} ms, failed: ${probes.failed.slice(0, 5).join("; ")}; logged: ${logged}`;
      console.log(text);
      expect(probes.failed, text).toEqual([]);
      expect(attack.expect, text).toContain(answer.status);
    }, 180_000);
  }
});
