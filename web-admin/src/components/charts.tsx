// Small charts drawn as SVG: a sparkline of recent values, a meter of a value
// against its limit, and horizontal bars for a breakdown (discards by reason).
import * as fmt from "../lib/format.ts";

export function Sparkline(props: { values: readonly number[]; label: string; height?: number }) {
  const w = 240;
  const h = props.height ?? 48;
  // one figure so far: a flat line, so the chart is never blank
  const vs = props.values.length === 1 ? [props.values[0]!, props.values[0]!] : props.values;
  const max = Math.max(1e-9, ...vs);
  const step = vs.length > 1 ? w / (vs.length - 1) : w;
  const points = vs.map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (v / max) * (h - 4)).toFixed(1)}`);
  return (
    <svg class="sparkline" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={props.label}>
      {vs.length > 1 && (
        <>
          <path d={`M0,${h} L${points.join(" L")} L${w},${h} Z`} class="area" />
          <polyline points={points.join(" ")} class="line" />
        </>
      )}
    </svg>
  );
}

/** value against limit; limit 0 means unlimited */
export function Meter(props: { label: string; value: number | undefined; limit: number; unit?: string; format?: (n: number) => string }) {
  const f = props.format ?? fmt.number;
  const value = props.value ?? 0;
  const ratio = props.limit > 0 ? Math.min(1, value / props.limit) : 0;
  const tone = ratio >= 0.9 ? "bad" : ratio >= 0.7 ? "warn" : "ok";
  const text = `${props.value === undefined ? "–" : f(value)}${props.unit ?? ""} of ${props.limit > 0 ? `${f(props.limit)}${props.unit ?? ""}` : "no limit"}`;
  return (
    <div class="meter">
      <div class="meter-head">
        <span>{props.label}</span>
        <span class="muted">{text}</span>
      </div>
      <div
        class={`meter-track ${tone}`}
        role="meter"
        aria-label={props.label}
        aria-valuemin={0}
        aria-valuemax={props.limit > 0 ? props.limit : undefined}
        aria-valuenow={value}
        aria-valuetext={text}
      >
        <div class="meter-fill" style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
      </div>
    </div>
  );
}

export function Bars(props: { label: string; items: readonly [string, number][]; empty: string }) {
  const max = Math.max(1, ...props.items.map(([, v]) => v));
  if (props.items.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <ul class="bars" aria-label={props.label}>
      {props.items.map(([name, v]) => (
        <li>
          <span class="bar-name">{name}</span>
          <span class="bar-track"><span class="bar-fill" style={{ width: `${((v / max) * 100).toFixed(1)}%` }} /></span>
          <span class="bar-value">{fmt.number(v)}</span>
        </li>
      ))}
    </ul>
  );
}
