import { z } from "zod/mini";

// docs/operations.md: the operations a customer approves with a passkey, as RFC 9396 `authorization_details`. One
// schema for the identity API's emulator (the pushed request), the worker (the confirmation screen) and the tests.
// Every object is strict: an unknown type, an unknown or missing field, or a value out of its range is invalid.

/** The most bytes the `authorization_details` parameter may have, as UTF-8 JSON text. */
export const AUTHORIZATION_DETAILS_MAX_BYTES = 4096;
/** One operation per approval for now: the array holds exactly this many entries. */
export const AUTHORIZATION_DETAILS_ENTRIES = 1;
/** A withdrawal's amount, in whole yen. */
export const WITHDRAWAL_MIN_YEN = 1;
export const WITHDRAWAL_MAX_YEN = 100_000_000;
/** A bank's or branch's name, in characters (Unicode code points). */
export const ACCOUNT_NAME_MAX_CHARACTERS = 32;

export const authorizationDetailsTypes = ["withdrawal", "bank_account_change", "contact_change"] as const;
export type AuthorizationDetailsType = (typeof authorizationDetailsTypes)[number];

/**
 * 普通 (ordinary), 当座 (current), 貯蓄 (savings): values of the contract, not words shown by this module. Written as
 * escapes because forms/ holds no Japanese text (architecture §2).
 */
export const accountTypes = ["\u666e\u901a", "\u5f53\u5ea7", "\u8caf\u84c4"] as const;
export type AccountType = (typeof accountTypes)[number];

/** Control characters, format characters (bidi overrides, zero-width marks) and line or paragraph separators. */
const invisible = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** 1 to 32 characters, none of them invisible, with no white space at either end. */
export function isAccountName(value: string): boolean {
  const characters = [...value].length;
  return (
    characters >= 1 && characters <= ACCOUNT_NAME_MAX_CHARACTERS && !invisible.test(value) && value.trim() === value
  );
}

/** `****1234`: exactly four asterisks, then the account number's last four ASCII digits. */
export const MASKED_ACCOUNT_NUMBER = /^\*{4}[0-9]{4}$/;

/**
 * `t***@example.com`: the local part's first character (an ASCII letter, digit or RFC 5322 `atext` symbol but `*`),
 * exactly three asterisks, `@`, and the whole domain (at most 253 characters: two or more labels of ASCII letters,
 * digits and hyphens, 1 to 63 each, neither starting nor ending with a hyphen; an internationalised domain in its
 * `xn--` form).
 */
const domainLabel = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
export const MASKED_EMAIL = new RegExp(
  `^[A-Za-z0-9!#$%&'+\\-/=?^_\`{|}~]\\*{3}@(?=[^@]{1,253}$)${domainLabel}(?:\\.${domainLabel})+$`,
);

/** `***-****-5678`: always `***-****-`, whatever the number's length and grouping, then its last four ASCII digits. */
export const MASKED_PHONE = /^\*{3}-\*{4}-[0-9]{4}$/;

const accountName = z.string().check(
  z.refine(isAccountName, {
    message: `must be 1 to ${ACCOUNT_NAME_MAX_CHARACTERS} characters, no control or format characters, not starting or ending with white space`,
  }),
);

/** A bank account as the customer is shown it: the bank, the branch, the type and the masked number. */
export const bankAccountSchema = z.strictObject({
  bank_name: accountName,
  branch_name: accountName,
  account_type: z.enum(accountTypes),
  account_number: z.string().check(z.regex(MASKED_ACCOUNT_NUMBER, "must be **** and the last four digits")),
});
export type BankAccount = z.infer<typeof bankAccountSchema>;

export const withdrawalSchema = z.strictObject({
  type: z.literal("withdrawal"),
  amount: z.int().check(z.gte(WITHDRAWAL_MIN_YEN), z.lte(WITHDRAWAL_MAX_YEN)),
  currency: z.literal("JPY"),
  destination: bankAccountSchema,
});
export type Withdrawal = z.infer<typeof withdrawalSchema>;

export const bankAccountChangeSchema = z.strictObject({
  type: z.literal("bank_account_change"),
  account: bankAccountSchema,
});
export type BankAccountChange = z.infer<typeof bankAccountChangeSchema>;

export const contactChangeSchema = z.discriminatedUnion("channel", [
  z.strictObject({
    type: z.literal("contact_change"),
    channel: z.literal("email"),
    new_value: z.string().check(z.regex(MASKED_EMAIL, "must be a masked e-mail address (t***@example.com)")),
  }),
  z.strictObject({
    type: z.literal("contact_change"),
    channel: z.literal("phone"),
    new_value: z.string().check(z.regex(MASKED_PHONE, "must be a masked phone number (***-****-5678)")),
  }),
]);
export type ContactChange = z.infer<typeof contactChangeSchema>;

export const authorizationDetailSchema = z.discriminatedUnion("type", [
  withdrawalSchema,
  bankAccountChangeSchema,
  contactChangeSchema,
]);
export type AuthorizationDetail = z.infer<typeof authorizationDetailSchema>;

/** RFC 9396 §2: a JSON array; here exactly one entry. */
export const authorizationDetailsSchema = z
  .array(authorizationDetailSchema)
  .check(z.length(AUTHORIZATION_DETAILS_ENTRIES, `must hold exactly ${AUTHORIZATION_DETAILS_ENTRIES} entry`));
export type AuthorizationDetails = z.infer<typeof authorizationDetailsSchema>;

export type AuthorizationDetailsParse =
  | { success: true; data: AuthorizationDetails }
  | { success: false; error: string };

/**
 * The `authorization_details` parameter's text, checked: at most 4096 bytes, JSON, and the schema. A refusal names
 * the fields that failed and never their values.
 */
export function parseAuthorizationDetails(text: string): AuthorizationDetailsParse {
  if (new TextEncoder().encode(text).length > AUTHORIZATION_DETAILS_MAX_BYTES)
    return { success: false, error: `authorization_details is over ${AUTHORIZATION_DETAILS_MAX_BYTES} bytes` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { success: false, error: "authorization_details is not JSON" };
  }
  const parsed = authorizationDetailsSchema.safeParse(json);
  if (parsed.success) return { success: true, data: parsed.data };
  const issues = parsed.error.issues.map(
    (issue) => `authorization_details${issue.path.map((part) => `.${String(part)}`).join("")} ${describe(issue)}`,
  );
  return { success: false, error: issues.join("; ") };
}

/**
 * An issue in words of the schema's own, in printable ASCII without quotes (RFC 6749 §5.2's `error_description`):
 * zod/mini carries no messages, and the request's own text (an unknown field's name) is never repeated.
 */
function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_union":
      // The discriminator's own values (`type`, `channel`): the schema's words, never the request's.
      return "options" in issue && Array.isArray(issue.options)
        ? `must be one of ${issue.options.join(", ")}`
        : "is invalid";
    case "unrecognized_keys":
      return "has a field its type does not define";
    case "invalid_type":
      return `is missing or not ${issue.expected === "int" ? "an integer" : `a(n) ${issue.expected}`}`;
    case "too_small":
      return issue.origin === "array" ? issue.message : `must be at least ${issue.minimum}`;
    case "too_big":
      return issue.origin === "array" ? issue.message : `must be at most ${issue.maximum}`;
    case "invalid_value":
      return "is not one of the values its field allows";
    default:
      return issue.message;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The details as one string: object members sorted by key (UTF-16 code units), no white space, strings and integers
 * as `JSON.stringify` writes them. For these values (objects, arrays, strings, integers) it is RFC 8785's JSON
 * Canonicalization Scheme. The passkey challenge of an approval is derived from it (docs/operations.md).
 */
export function canonicalJson(details: AuthorizationDetails): string {
  return canonical(details);
}
