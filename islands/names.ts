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
] as const;
export type IslandName = (typeof islandNames)[number];
