import type { FieldMessageKey, PasswordCheck } from "../messages/ja";

// product §5: one set of field rules, run by the worker on every POST and by the islands while typing.
// A rule answers null when the value is fine, else the key of the message to show (see messages/ja.ts).

export const PASSWORD_SYMBOLS = `=+-^$*.[]{}()?"!@#%&/\\,><':;|_~\``;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH_EXCLUSIVE = 256;
export const CODE_LENGTH = 6;
export const FIELD_MAX_LENGTH = 256;

/** The blank message: the field is invalid (submit disabled) but nothing is said yet (product §5, empty e-mail). */
export const BLANK = "blank" as const;
export type RuleOutcome = null | typeof BLANK | FieldMessageKey;

/** product §5: one brand's passwords skip the symbol and allowed-character checks; its brand data says "relaxed". */
export type PasswordRules = "standard" | "relaxed";

export interface RuleContext {
  passwordRules?: PasswordRules | undefined;
}

const symbolSet = new Set(PASSWORD_SYMBOLS);
const isLetterOrDigit = (ch: string) => /^[A-Za-z0-9]$/.test(ch);

/** Every checklist row of the password rules, in the order the checklist shows them. */
export function passwordChecklist(value: string, ctx: RuleContext = {}): Array<{ check: PasswordCheck; ok: boolean }> {
  const relaxed = ctx.passwordRules === "relaxed";
  const chars = [...value];
  const rows: Array<{ check: PasswordCheck; ok: boolean }> = [
    { check: "length", ok: chars.length >= PASSWORD_MIN_LENGTH && chars.length < PASSWORD_MAX_LENGTH_EXCLUSIVE },
    { check: "lowercase", ok: /[a-z]/.test(value) },
    { check: "uppercase", ok: /[A-Z]/.test(value) },
    { check: "symbol", ok: chars.some((ch) => symbolSet.has(ch)) },
    { check: "digit", ok: /[0-9]/.test(value) },
    { check: "allowedCharacters", ok: chars.every((ch) => isLetterOrDigit(ch) || symbolSet.has(ch)) },
  ];
  return relaxed ? rows.filter((row) => row.check !== "symbol" && row.check !== "allowedCharacters") : rows;
}

/** Sign-up and reset forms name the first broken rule. */
export function password(value: string, ctx: RuleContext = {}): RuleOutcome {
  if (value === "") return BLANK;
  const broken = passwordChecklist(value, ctx).find((row) => !row.ok);
  return broken ? (`password.${broken.check}` as FieldMessageKey) : null;
}

/** Change-password forms say only 'Please enter a correct password'. */
export function passwordForChange(value: string, ctx: RuleContext = {}): RuleOutcome {
  const outcome = password(value, ctx);
  return outcome === null || outcome === BLANK ? outcome : "password.incorrect";
}

// product §5 "{email} with no spaces": one @, a dotted domain, no white space, RFC 5321 length.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
export const EMAIL_MAX_LENGTH = 254;

export function email(value: string): RuleOutcome {
  if (value === "") return BLANK;
  return value.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(value) ? null : "email.invalid";
}

export function loginId(value: string): RuleOutcome {
  if (value.trim() === "") return BLANK;
  return value.length <= FIELD_MAX_LENGTH ? null : "loginId.required";
}

export function code(value: string): RuleOutcome {
  if (value === "") return BLANK;
  return new RegExp(`^[0-9]{${CODE_LENGTH}}$`).test(value) ? null : "code.invalid";
}

const PHONE_PATTERN = /^0[5789]0[0-9]{8}$/;

export function phone(value: string): RuleOutcome {
  if (value === "") return BLANK;
  return PHONE_PATTERN.test(value) ? null : "phone.invalid";
}

/** product §5: the phone is sent as +81 followed by the number exactly as typed. */
export function phoneForUpstream(value: string): string {
  return `+81${value}`;
}

export const fieldRules = { email, password, passwordForChange, loginId, code, phone } as const;
export type FieldRuleName = keyof typeof fieldRules;

/**
 * Every message each rule can answer. The server gives a field island the words of exactly these (no
 * message module ships to the browser); forms/rules.test.ts runs every rule to prove the lists complete.
 */
export const ruleMessageKeys = {
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
} as const satisfies Record<FieldRuleName, readonly FieldMessageKey[]>;

export function runRule(rule: FieldRuleName, value: string, ctx: RuleContext = {}): RuleOutcome {
  return fieldRules[rule](value, ctx);
}
