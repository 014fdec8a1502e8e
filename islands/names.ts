/** Every island's name; host elements carry one, and registry.ts maps each to its chunk. */
export const islandNames = [
  "TextField",
  "PasswordField",
  "SubmitButton",
  "BackButton",
  "SessionGuard",
  "NativeBridge",
  "CopySecret",
  "SmsSendButton",
  "PasskeySignIn",
  "PasskeyCreate",
  "PasskeyOffer",
  "ServerModal",
] as const;
export type IslandName = (typeof islandNames)[number];

/** What a crash report (islands/crashReport.ts → /report/island) names besides an island, and its phases. */
export const crashSources = ["unknown", "page"] as const;
export const crashPhases = ["load", "render", "markup", "uncaught"] as const;
export type CrashSource = IslandName | (typeof crashSources)[number];
export type CrashPhase = (typeof crashPhases)[number];
