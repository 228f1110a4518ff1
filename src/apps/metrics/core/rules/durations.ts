// Prometheus's model.Duration, which rule groups use for interval, for,
// keep_firing_for and query_offset: units in order y w d h m s ms, whole
// numbers only, "0" without a unit; printed with the largest units first
// (years and weeks only when exact).

const RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNITS = [31_536_000_000, 604_800_000, 86_400_000, 3_600_000, 60_000, 1000, 1];

/** model.ParseDuration in milliseconds; throws with Prometheus's message */
export function parsePromDuration(text: string): number {
  if (text === "0") return 0;
  if (text === "") throw new Error("empty duration string");
  const m = RE.exec(text);
  if (!m) throw new Error(`not a valid duration string: "${text}"`);
  let ms = 0;
  UNITS.forEach((unit, i) => {
    if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * unit;
  });
  if (!Number.isSafeInteger(ms)) throw new Error("duration out of range");
  return ms;
}

/** model.Duration.String() */
export function formatPromDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  const take = (unit: string, size: number, exact: boolean) => {
    if (exact && rest % size !== 0) return;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  };
  take("y", UNITS[0]!, true);
  take("w", UNITS[1]!, true);
  take("d", UNITS[2]!, false);
  take("h", UNITS[3]!, false);
  take("m", UNITS[4]!, false);
  take("s", UNITS[5]!, false);
  take("ms", 1, false);
  return out;
}
