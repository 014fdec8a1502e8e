import { fieldLabels } from "../messages/ja";
import type { FieldRuleName } from "./rules";

// product §3 "Forms": every field of the site by name, with its label, autocomplete, input mode, icon and rule.
// Pages and islands share these presets, so an island gets a preset's key and finds its words here.

export interface FieldPreset {
  /** The form field's name, as the worker reads it. */
  name: string;
  label: string;
  type: "email" | "text" | "tel" | "password";
  autoComplete: string;
  inputMode?: "email" | "numeric" | "tel" | "text";
  rule: FieldRuleName;
  icon?: "email" | "key";
  /**
   * A short format hint only: an input does not wrap, so a longer one is cut at 200 % text on a phone, and what to
   * enter is the label's to say (docs/accessibility.md, "Reflow, text size, spacing, forced colours and targets").
   */
  placeholder?: string;
  maxLength: number;
  /** Password fields where a password is chosen show the live checklist (product §5). */
  checklist?: boolean;
}

const email = {
  name: "email",
  label: fieldLabels.email,
  type: "email",
  autoComplete: "email",
  inputMode: "email",
  rule: "email",
  icon: "email",
  maxLength: 254,
} as const satisfies FieldPreset;

const code = {
  name: "code",
  label: fieldLabels.emailCode,
  type: "text",
  autoComplete: "one-time-code",
  inputMode: "numeric",
  rule: "code",
  icon: "key",
  placeholder: fieldLabels.codePlaceholder,
  maxLength: 6,
} as const satisfies FieldPreset;

const password = {
  name: "password",
  label: fieldLabels.password,
  type: "password",
  autoComplete: "current-password",
  rule: "password",
  icon: "key",
  maxLength: 255,
} as const satisfies FieldPreset;

export const fieldPresets = {
  email,
  newEmail: { ...email, name: "newEmail", label: fieldLabels.newEmail },
  loginId: {
    name: "username",
    label: fieldLabels.loginId,
    type: "text",
    autoComplete: "username",
    inputMode: "email",
    rule: "loginId",
    icon: "email",
    maxLength: 256,
  },
  /** The password of a sign-in. */
  password,
  /** The password chosen at sign-up. */
  signUpPassword: { ...password, autoComplete: "new-password", checklist: true },
  /** A new password on the reset, initiation and forced-change screens: the broken rule is named (product §5). */
  newPassword: {
    ...password,
    name: "newPassword",
    label: fieldLabels.newPassword,
    autoComplete: "new-password",
    checklist: true,
  },
  /** Change-password forms say only 'Please enter a correct password' (product §5). */
  changedPassword: {
    ...password,
    name: "newPassword",
    label: fieldLabels.newPassword,
    autoComplete: "new-password",
    rule: "passwordForChange",
    checklist: true,
  },
  currentPassword: {
    ...password,
    name: "currentPassword",
    label: fieldLabels.currentPassword,
    rule: "passwordForChange",
  },
  /** An e-mail code (sign-up, e-mail registration). */
  code,
  /** A second-factor code when signing in. */
  mfaCode: { ...code, name: "mfaCode", label: fieldLabels.mfaCode },
  /** A second-factor code while setting the factor up. */
  mfaOtpCode: { ...code, name: "mfaOtpCode", label: fieldLabels.mfaCode },
  phoneNumber: {
    name: "phoneNumber",
    label: fieldLabels.phoneNumber,
    type: "tel",
    autoComplete: "tel-national",
    inputMode: "tel",
    rule: "phone",
    placeholder: fieldLabels.phonePlaceholder,
    maxLength: 11,
  },
} as const satisfies Record<string, FieldPreset>;

export type FieldPresetName = keyof typeof fieldPresets;
