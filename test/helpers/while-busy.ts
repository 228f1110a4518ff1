// Whether another listener still answers while one request does heavy work
// (issue 16: one request must not freeze the process). The attack is sent,
// given a moment to reach its handler, then the probe is sent; the probe must
// answer before a deadline counted from the attack's start. A handler that
// blocks the event loop delays the probe past the deadline (the deadline's
// timer fires first once the loop is free). Generous deadlines only: this
// is a hang detector, not a timing assertion.
export async function probeWhile<T>(
  attack: () => Promise<T>,
  probe: () => Promise<Response>,
  deadlineMs = 4_000,
): Promise<{ attack: T; probe: number | "no answer before the deadline" }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"no answer before the deadline">((resolve) => {
    timer = setTimeout(() => resolve("no answer before the deadline"), deadlineMs);
  });
  const running = attack();
  await new Promise((r) => setTimeout(r, 200));
  const probed = await Promise.race([probe().then(async (res) => (await res.arrayBuffer(), res.status)), deadline]);
  clearTimeout(timer);
  return { attack: await running, probe: probed };
}
