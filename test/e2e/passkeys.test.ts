import * as oauth from "oauth4webapi";
import type { BrowserContext, CDPSession } from "playwright-core";
import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { chromiumForFile, islandsHydrated, siteUrl } from "./browser";
import { emulator, newContext, oidcApp, openApp } from "./journeys";

// docs/passkeys.md, issue 21: a passkey sign-in in Chromium, with the DevTools Protocol's virtual authenticator (a
// platform authenticator that verifies its user). The site is opened as `localhost`: an RP ID is a host name, never
// an IP address. The passkey's key is made here and given both to the virtual authenticator and to the emulator,
// as the enrolment screen would have done.

const baseUrl = siteUrl().replace("127.0.0.1", "localhost");
const idp = emulator(baseUrl);
const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };

const browser = chromiumForFile({ emulator: idp });

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** A P-256 passkey: its id, user handle, the COSE public key for the emulator and the PKCS #8 key for Chromium. */
async function newPasskey() {
  const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  // COSE_Key (RFC 9053): {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}, CBOR-encoded.
  const cose = new Uint8Array([
    0xa5,
    ...[0x01, 0x02, 0x03, 0x26, 0x20, 0x01],
    ...[0x21, 0x58, 0x20, ...raw.slice(1, 33)],
    ...[0x22, 0x58, 0x20, ...raw.slice(33, 65)],
  ]);
  const id = crypto.getRandomValues(new Uint8Array(32));
  const userHandle = crypto.getRandomValues(new Uint8Array(32));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return { id, userHandle, cose, pkcs8 };
}

/** Chromium's virtual platform authenticator, holding the passkey, that verifies its user without asking. */
async function virtualAuthenticator(context: BrowserContext, passkey: Awaited<ReturnType<typeof newPasskey>>) {
  const page = await context.newPage();
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await cdp.send("WebAuthn.addCredential", {
    authenticatorId,
    credential: {
      credentialId: base64(passkey.id),
      isResidentCredential: true,
      rpId: new URL(baseUrl).hostname,
      privateKey: base64(passkey.pkcs8),
      userHandle: base64(passkey.userHandle),
      signCount: 0,
    },
  });
  return page;
}

/** The app's code exchanged by a real OIDC client; the id_token's claims must say a passkey login, just now. */
async function expectPhishingResistantLogin(app: Awaited<ReturnType<typeof openApp>>, startedAt: number) {
  const callback = await app.received;
  const { as, client, grant } = await oidcApp(baseUrl, GUNGNIR.clientId);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await grant(app, callback), {
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  expect(claims?.acr).toBe("phr");
  expect(claims?.amr).toEqual(["pop", "mfa"]);
  expect(claims?.auth_time).toBeGreaterThanOrEqual(startedAt - 5);
}

/** A user with a passkey, at the app's sign-in in a browser whose virtual authenticator holds it. */
async function atSignInWithPasskey(context: BrowserContext, script?: () => void) {
  const email = `passkey.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const passkey = await newPasskey();
  await idp.seed({
    email,
    passkey: {
      id: base64url(passkey.id),
      publicKey: base64url(passkey.cose),
      userHandle: base64url(passkey.userHandle),
    },
  });
  if (script) await context.addInitScript(script);
  const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
  const page = await virtualAuthenticator(context, passkey);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const startedAt = Math.floor(Date.now() / 1000);
  await page.goto(app.startUrl);
  expect(new URL(page.url()).pathname).toBe("/signIn");
  return { app, page, errors, startedAt };
}

describe("passkey sign-in in Chromium (docs/passkeys.md)", () => {
  it("signs in with the button and the passkey alone: no login ID, no password, no code", async () => {
    const context = await newContext(browser(), true);
    try {
      // A browser without passkey autofill (conditional mediation): the button is the way.
      const { app, page, errors, startedAt } = await atSignInWithPasskey(context, () => {
        PublicKeyCredential.isConditionalMediationAvailable = async () => false;
      });
      await islandsHydrated(page);
      expect(await page.locator("#field-username").getAttribute("autocomplete")).toBe("username");
      await page.getByRole("button", { name: "パスキーでログイン" }).click();
      await expectPhishingResistantLogin(app, startedAt);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("signs in through the login ID field's autofill (conditional mediation), without a click", async () => {
    const context = await newContext(browser(), true);
    try {
      // Chromium's virtual authenticator answers a conditional request by itself (automatic presence): as a user
      // picking the passkey the field offers.
      const { app, errors, startedAt } = await atSignInWithPasskey(context);
      await expectPhishingResistantLogin(app, startedAt);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows no passkey option where the browser or webview has no WebAuthn", async () => {
    const context = await newContext(browser(), true);
    try {
      await context.addInitScript(() => {
        Reflect.deleteProperty(window, "PublicKeyCredential");
      });
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
      const page = await context.newPage();
      await page.goto(app.startUrl);
      await islandsHydrated(page);
      expect(await page.getByRole("button", { name: "パスキーでログイン" }).isVisible()).toBe(false);
      expect(await page.locator("#field-username").getAttribute("autocomplete")).toBe("username");
    } finally {
      await context.close();
    }
  });
});
