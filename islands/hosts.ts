import BackButtonIsland from "./BackButton";
import CopySecretIsland from "./CopySecret";
import { Field } from "./Field";
import { island } from "./host";
import NativeBridgeIsland from "./NativeBridge";
import PasskeyCreateIsland from "./PasskeyCreate";
import PasskeyOfferIsland from "./PasskeyOffer";
import PasskeySignInIsland from "./PasskeySignIn";
import ServerModalIsland from "./ServerModal";
import { SessionGuard as SessionGuardIsland } from "./SessionGuard";
import { SubmitButton as SubmitButtonIsland } from "./SubmitButton";

// The server's side of every island: pages render these, which wrap each component in its host element (host.tsx).
// The browser's bundle never imports this file: its registry (registry.ts) takes the components themselves.

export const TextField = island("TextField", Field);
export const PasswordField = island("PasswordField", Field);
export const SubmitButton = island("SubmitButton", SubmitButtonIsland);
export const BackButton = island("BackButton", BackButtonIsland);
export const SessionGuard = island("SessionGuard", SessionGuardIsland);
export const NativeBridge = island("NativeBridge", NativeBridgeIsland);
export const CopySecret = island("CopySecret", CopySecretIsland);
export const SmsSendButton = island("SmsSendButton", SubmitButtonIsland);
export const PasskeySignIn = island("PasskeySignIn", PasskeySignInIsland);
export const PasskeyCreate = island("PasskeyCreate", PasskeyCreateIsland);
export const PasskeyOffer = island("PasskeyOffer", PasskeyOfferIsland);
export const ServerModal = island("ServerModal", ServerModalIsland);
