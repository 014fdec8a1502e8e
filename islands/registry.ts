import type { IslandName } from "./names";

// Every island by name: the client entry imports only the chunks of the islands a page contains.
export const islandLoaders = {
  TextField: () => import("./TextField"),
  PasswordField: () => import("./PasswordField"),
  SubmitButton: () => import("./SubmitButton"),
  BackButton: () => import("./BackButton"),
  SessionGuard: () => import("./SessionGuard"),
  NativeBridge: () => import("./NativeBridge"),
  CopySecret: () => import("./CopySecret"),
  SmsSendButton: () => import("./SmsSendButton"),
} satisfies Record<IslandName, () => Promise<{ default: { Component: unknown } }>>;
