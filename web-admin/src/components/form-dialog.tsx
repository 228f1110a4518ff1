// A form that runs one action (useAction's result): the action's error, the
// fields, then Cancel (when there is somewhere to go back to) and the submit
// button. FormDialog is the same form in a modal dialog.
import type { ComponentChildren } from "preact";
import { Button, Dialog, ErrorNote } from "./ui.tsx";

/** what useAction returns, or the same three by hand */
export interface FormAction {
  run: () => Promise<unknown>;
  pending: boolean;
  error: Error | undefined;
}

export interface ActionFormProps {
  action: FormAction;
  submitLabel: string;
  /** shows a Cancel button before the submit button */
  onCancel?: () => void;
  /** classes besides "form" (card, narrow) */
  class?: string;
  /** above the error: a heading, an introduction */
  head?: ComponentChildren;
  /** what failed, for ErrorNote */
  what?: string;
  /** the error after the fields, next to the buttons (long forms) */
  errorBelow?: boolean;
  children: ComponentChildren;
}

export function ActionForm(props: ActionFormProps) {
  const { action } = props;
  const error = <ErrorNote error={action.error} what={props.what} />;
  return (
    <form
      class={props.class ? `${props.class} form` : "form"}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      {props.head}
      {!props.errorBelow && error}
      {props.children}
      {props.errorBelow && error}
      <div class="form-actions">
        {props.onCancel && <Button onClick={props.onCancel}>Cancel</Button>}
        <Button kind="primary" type="submit" pending={action.pending}>{props.submitLabel}</Button>
      </div>
    </form>
  );
}

export function FormDialog(props: Omit<ActionFormProps, "onCancel" | "class"> & { title: string; onClose: () => void; wide?: boolean }) {
  const { title, onClose, wide, ...form } = props;
  return (
    <Dialog title={title} onClose={onClose} wide={wide}>
      <ActionForm {...form} onCancel={onClose} />
    </Dialog>
  );
}
