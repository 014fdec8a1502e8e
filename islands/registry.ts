import type { ComponentType } from "react";
import { BaseField } from "./BaseField";
import type { IslandName } from "./names";
import { SessionGuard } from "./SessionGuard";
import { SubmitButton } from "./SubmitButton";

// Every island's component by name (hosts.ts is the server's side). The ones on nearly every page with script
// (fields, submit buttons, the session guard) are in the client entry itself, so that a form page fetches one file
// of its own; the others are chunks that a page loads only where it uses them (the budget: at most 4 KB gzip of
// island code per page, and every file has its overhead). What only some of those pages show is loaded where it
// shows: a field's password checklist by the field's loader, which is given the island's props.
// biome-ignore lint/suspicious/noExplicitAny: each island takes its own props, as JSON from its host element.
type Island = ComponentType<any>;
// biome-ignore lint/suspicious/noExplicitAny: as above.
type Loader = (props: any) => { default: Island } | Promise<{ default: Island }>;

/** An island of the entry, as its chunk's loader would give it. */
const inEntry = (Component: Island) => () => ({ default: Component });

export const islands: Partial<Record<IslandName, Loader>> = {
  TextField: inEntry(BaseField),
  // Where a password is chosen, with its checklist and checks (ChosenPassword.tsx); the sign-in page's has none.
  PasswordField: (props: { words?: { checklist?: unknown } }) =>
    props.words?.checklist ? import("./ChosenPassword") : { default: BaseField },
  SubmitButton: inEntry(SubmitButton),
  SmsSendButton: () => import("./SmsSendButton"),
  SessionGuard: inEntry(SessionGuard),
  BackButton: () => import("./BackButton"),
  CopySecret: () => import("./CopySecret"),
  NativeBridge: () => import("./NativeBridge"),
  PasskeySignIn: () => import("./PasskeySignIn"),
  PasskeyCreate: () => import("./PasskeyCreate"),
  PasskeyOffer: () => import("./PasskeyOffer"),
  // Only a page the server answered with a modal open has one.
  ServerModal: () => import("./ServerModal"),
};
