import type { ComponentType } from "react";

// Every island by name: the client entry imports only the chunks of the islands a page contains.
export const islandLoaders = {
  TextField: () => import("./TextField"),
  PasswordField: () => import("./PasswordField"),
  SubmitButton: () => import("./SubmitButton"),
  BackButton: () => import("./BackButton"),
} satisfies Record<string, () => Promise<{ default: { Component: ComponentType<never> } }>>;

export type IslandName = keyof typeof islandLoaders;

export function isIslandName(name: string): name is IslandName {
  return Object.hasOwn(islandLoaders, name);
}
