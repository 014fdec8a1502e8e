import { type PasswordCheck, passwordChecklist } from "../forms/rules";

// The upstream enforces the same SPEC §5 rules the site's forms check, so it shares their one definition.
const details: Record<PasswordCheck, string> = {
  length: "Password must be 8 or more and under 256 characters",
  lowercase: "Password must include at least one lowercase letter",
  uppercase: "Password must include at least one uppercase letter",
  symbol: "Password must include at least one symbol (e.g. @#%&?!)",
  digit: "Password must include at least one digit",
  allowedCharacters: "Password contains unusable characters",
};

/** The first SPEC §5 rule the password breaks, in words, or undefined; liqueur-lemon skips symbol and charset. */
export function passwordProblem(password: string, serviceId: string | undefined): string | undefined {
  const broken = passwordChecklist(password, { serviceId }).find((row) => !row.ok);
  return broken && details[broken.check];
}
