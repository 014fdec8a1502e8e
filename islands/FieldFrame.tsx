import type { ReactNode } from "react";
import type { FieldPreset } from "../forms/fields";
import { Icon } from "./icons";

/** Label, icon, input slot and message of one field, with the ids that tie them together. */
export function FieldFrame({
  preset,
  message,
  children,
  after,
}: {
  preset: FieldPreset;
  message: string;
  children: ReactNode;
  after?: ReactNode;
}) {
  return (
    <div className={`field${message ? " field--invalid" : ""}`}>
      <label className="field-label" htmlFor={fieldId(preset)}>
        {preset.label}
      </label>
      <div className="field-control">
        {preset.icon ? <Icon name={preset.icon} /> : null}
        {children}
      </div>
      <p className="field-message" id={messageId(preset)} role="alert" aria-live="polite">
        {message}
      </p>
      {after}
    </div>
  );
}

/** The input's id. */
export function fieldId(preset: FieldPreset): string {
  return `field-${preset.name}`;
}

export function messageId(preset: FieldPreset): string {
  return `${fieldId(preset)}-message`;
}
