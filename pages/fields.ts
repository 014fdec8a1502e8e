import type { FieldMessageKey, FieldRuleName } from "../forms/rules";
import type { FieldProps } from "../islands/fieldValidation";
import type { PasswordFieldProps } from "../islands/PasswordField";
import { common, fieldLabels, fieldMessages, passwordChecklistLabels } from "./messages";

// The field presets of SPEC §3 "Forms": names, labels, autocomplete, input modes, icons and rules in one place.

const ruleMessageKeys: Record<FieldRuleName, FieldMessageKey[]> = {
  email: ["email.invalid"],
  password: [
    "password.length",
    "password.lowercase",
    "password.uppercase",
    "password.symbol",
    "password.digit",
    "password.allowedCharacters",
  ],
  passwordForChange: ["password.incorrect"],
  loginId: ["loginId.required"],
  code: ["code.invalid"],
  phone: ["phone.invalid"],
};

function messagesFor(rule: FieldRuleName): Partial<Record<FieldMessageKey, string>> {
  return Object.fromEntries(ruleMessageKeys[rule].map((key) => [key, fieldMessages[key]]));
}

interface FieldState {
  value?: string | undefined;
  error?: string | undefined;
}

function withState<P extends FieldProps>(props: P, state: FieldState): P {
  return {
    ...props,
    ...(state.value !== undefined ? { value: state.value } : {}),
    ...(state.error ? { error: state.error } : {}),
  };
}

export function emailField(
  state: FieldState = {},
  options: { name?: string; label?: string; readOnly?: boolean } = {},
): FieldProps {
  return withState(
    {
      name: options.name ?? "email",
      label: options.label ?? fieldLabels.email,
      type: "email",
      autoComplete: "email",
      inputMode: "email",
      rule: "email",
      icon: "email",
      placeholder: fieldLabels.emailPlaceholder,
      maxLength: 254,
      ...(options.readOnly ? { readOnly: true } : {}),
      messages: messagesFor("email"),
    },
    state,
  );
}

export function loginIdField(state: FieldState = {}): FieldProps {
  return withState(
    {
      name: "username",
      label: fieldLabels.loginId,
      type: "text",
      autoComplete: "username",
      inputMode: "email",
      rule: "loginId",
      icon: "email",
      placeholder: fieldLabels.loginIdPlaceholder,
      maxLength: 256,
      messages: messagesFor("loginId"),
    },
    state,
  );
}

interface PasswordOptions {
  name: string;
  label: string;
  /** 'current-password' on sign-in and as the current password; 'new-password' where one is chosen. */
  autoComplete: "current-password" | "new-password";
  /** Change-password forms say only 'Please enter a correct password' (SPEC §5). */
  rule: "password" | "passwordForChange";
  checklist: boolean;
  serviceId: string;
}

export function passwordField(options: PasswordOptions, state: FieldState = {}): PasswordFieldProps {
  return withState<PasswordFieldProps>(
    {
      name: options.name,
      label: options.label,
      type: "password",
      autoComplete: options.autoComplete,
      rule: options.rule,
      serviceId: options.serviceId,
      icon: "key",
      maxLength: 255,
      messages: messagesFor(options.rule),
      toggleLabels: { show: common.showPassword, hide: common.hidePassword },
      ...(options.checklist
        ? {
            checklist: {
              title: common.passwordChecklistTitle,
              met: common.checklistMet,
              unmet: common.checklistUnmet,
              labels: passwordChecklistLabels,
            },
          }
        : {}),
    },
    state,
  );
}

/** The password chosen on the sign-up-like pages: its live checklist; `rule` says which messages (SPEC §5). */
export function newPasswordField(
  serviceId: string,
  rule: PasswordOptions["rule"],
  state: FieldState = {},
): PasswordFieldProps {
  return passwordField(
    {
      name: "newPassword",
      label: fieldLabels.newPassword,
      autoComplete: "new-password",
      rule,
      checklist: true,
      serviceId,
    },
    state,
  );
}

/** The password the user has now, on the change-password form. */
export function currentPasswordField(serviceId: string, state: FieldState = {}): PasswordFieldProps {
  return passwordField(
    {
      name: "currentPassword",
      label: fieldLabels.currentPassword,
      autoComplete: "current-password",
      rule: "passwordForChange",
      checklist: false,
      serviceId,
    },
    state,
  );
}

export function codeField(state: FieldState = {}, options: { name?: string; label?: string } = {}): FieldProps {
  return withState(
    {
      name: options.name ?? "code",
      label: options.label ?? fieldLabels.emailCode,
      type: "text",
      autoComplete: "one-time-code",
      inputMode: "numeric",
      rule: "code",
      icon: "key",
      placeholder: fieldLabels.codePlaceholder,
      maxLength: 6,
      messages: messagesFor("code"),
    },
    state,
  );
}

/**
 * A second-factor code: `mfaCode` when signing in, `mfaOtpCode` while setting the factor up (SPEC §3 Forms).
 * The e-mail codes use `codeField`.
 */
export function mfaCodeField(name: "mfaCode" | "mfaOtpCode", state: FieldState = {}): FieldProps {
  return codeField(state, { name, label: fieldLabels.mfaCode });
}

export function phoneField(state: FieldState = {}): FieldProps {
  return withState(
    {
      name: "phoneNumber",
      label: fieldLabels.phoneNumber,
      type: "tel",
      autoComplete: "tel-national",
      inputMode: "tel",
      rule: "phone",
      placeholder: fieldLabels.phonePlaceholder,
      maxLength: 11,
      messages: messagesFor("phone"),
    },
    state,
  );
}
