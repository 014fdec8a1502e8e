import type { ReactNode } from "react";
import type { FieldProps } from "./fieldValidation";
import { fieldIcons } from "./icons";

/** Label, icon, input slot, hint and message of one field, with the ids that tie them together. */
export function FieldFrame({
  props,
  message,
  children,
  after,
}: {
  props: FieldProps;
  message: string;
  children: ReactNode;
  after?: ReactNode;
}) {
  const Icon = props.icon ? fieldIcons[props.icon] : null;
  return (
    <div className={`field${message ? " field--invalid" : ""}`}>
      <label className="field-label" htmlFor={`field-${props.name}`}>
        {props.label}
      </label>
      <div className="field-control">
        {Icon ? <Icon /> : null}
        {children}
      </div>
      {props.hint ? (
        <p className="field-hint" id={`field-${props.name}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <p className="field-message" id={`field-${props.name}-message`} role="alert" aria-live="polite">
        {message}
      </p>
      {after}
    </div>
  );
}

export function describedBy(props: FieldProps): string {
  return [props.hint ? `field-${props.name}-hint` : "", `field-${props.name}-message`].filter(Boolean).join(" ");
}
