// A role picker inside a table row: a select named "role" with a label for
// screen readers; a role outside the list stays selectable.
import { useId } from "preact/hooks";

export function RoleSelect(props: { label: string; value: string; roles: readonly string[]; disabled?: boolean; busy?: boolean; onChange: (role: string) => void }) {
  const id = useId();
  const options = props.roles.includes(props.value) ? props.roles : [props.value, ...props.roles];
  return (
    <>
      <label for={id} class="sr-only">{props.label}</label>
      <select
        id={id}
        name="role"
        value={props.value}
        disabled={props.disabled || props.busy}
        aria-busy={props.busy || undefined}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {options.map((r) => <option value={r}>{r}</option>)}
      </select>
    </>
  );
}
