// A data table: the scrolling wrapper, a caption for screen readers, one
// header row and the rows the page renders.
import type { ComponentChildren } from "preact";

/** a header: its text, or the text and a class (num, meter-col); an empty text is the actions column */
export type Column = string | { label: string; class?: string };

export function DataTable(props: { caption: string; columns?: readonly Column[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class="data">
        <caption class="sr-only">{props.caption}</caption>
        {props.columns && (
          <thead>
            <tr>
              {props.columns.map((c, i) => {
                const { label, class: cls } = typeof c === "string" ? { label: c, class: undefined } : c;
                return (
                  <th key={i} scope="col" class={cls}>
                    {label || <span class="sr-only">Actions</span>}
                  </th>
                );
              })}
            </tr>
          </thead>
        )}
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
