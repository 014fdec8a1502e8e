import { beforeEach, describe, expect, it } from "vitest";
import {
  appRedirectUri,
  authorizeUrl,
  call,
  exchangeCode,
  follow,
  login,
  pkcePair,
  postJson,
  resetEmulator,
  sampleClientIds,
  seedUser,
  setClock,
  site,
  startLogin,
} from "./emulatorClient";

beforeEach(resetEmulator);

const email = "partner@example.jp";
const partner = sampleClientIds.partner;
const partnerApp = appRedirectUri("liqueur-lemon-money-forword");

/** Partner-branded sign-in up to the consent URL; answers the consent challenge. */
async function reachConsent(
  scope = "openid",
): Promise<{ consentUrl: URL; verifier: string; cookie: string | undefined }> {
  const { challenge, verifier } = await startLogin({ client: partner, redirectUri: partnerApp, scope });
  const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
  const { location, cookie } = await follow(redirect_to);
  return { consentUrl: location, verifier, cookie };
}

function accept(challenge: string | null, grantScope: string[] = []): Promise<Response> {
  return postJson("/auth/v1/consent", {
    consent_challenge: challenge,
    grant_scope: grantScope,
    device_id: "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
    remember: false,
  });
}

describe("consent for the partner-branded service", () => {
  it("sends the browser to the consent screen, then issues the code after POST /auth/v1/consent", async () => {
    await seedUser({ email });
    const { consentUrl, verifier } = await reachConsent();
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe(`${site}/liqueur-lemon-money-forword/consent`);
    expect(consentUrl.searchParams.get("client_id")).toBe(partner);
    expect(consentUrl.searchParams.get("scope")).toBe("openid");
    const challenge = consentUrl.searchParams.get("consent_challenge");

    const described = await call(`/auth/v1/consent?consent_challenge=${challenge}`);
    expect(described.status).toBe(200);
    expect(await described.json()).toMatchObject({
      client_id: partner,
      requested_scope: ["openid"],
      service_id: "liqueur-lemon-money-forword",
    });

    const accepted = await accept(challenge, ["openid"]);
    expect(accepted.status).toBe(200);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect(redirect_to).toMatch(/^http:\/\/localhost:5173\/oauth2\/auth\?.*consent_verifier=/);
    const { location } = await follow(redirect_to);
    expect(`${location.origin}${location.pathname}`).toBe(partnerApp);
    const code = location.searchParams.get("code");
    expect(code).toBeTruthy();
    expect((await exchangeCode(code ?? "", verifier, { client: partner, redirectUri: partnerApp })).status).toBe(200);
    expect(new URL((await follow(redirect_to)).location).searchParams.get("error")).toBe("invalid_request");
  });

  it("names the login that asked the consent, as Hydra's consent request does, and none after a skipped login", async () => {
    const username = await seedUser({ email });
    const { challenge } = await startLogin({ client: partner, redirectUri: partnerApp, scope: "openid" });
    const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
    const { location, cookie } = await follow(redirect_to);
    const afterLogin = await call(
      `/auth/v1/consent?consent_challenge=${location.searchParams.get("consent_challenge")}`,
    );
    const described = (await afterLogin.json()) as Record<string, unknown>;
    expect(described).toMatchObject({ subject: username, login_challenge: challenge });
    expect(described.login_session_id).toEqual(expect.any(String));
    // The live session skips the login: the next consent request names no login challenge, the same session.
    const again = await call(
      authorizeUrl({
        client: partner,
        redirectUri: partnerApp,
        scope: "openid",
        codeChallenge: (await pkcePair()).challenge,
      }),
      { headers: { cookie: cookie ?? "" } },
    );
    const skipped = new URL(again.headers.get("location") ?? "").searchParams.get("consent_challenge");
    const next = (await (await call(`/auth/v1/consent?consent_challenge=${skipped}`)).json()) as Record<
      string,
      unknown
    >;
    expect(next.subject).toBe(username);
    expect(next.login_challenge).toBeUndefined();
    expect(next.login_session_id).toBe(described.login_session_id);
  });

  it("asks again with a live session, and never for other clients", async () => {
    await seedUser({ email });
    const { cookie } = await reachConsent();
    const { challenge } = await pkcePair();
    const again = await call(
      authorizeUrl({ client: partner, redirectUri: partnerApp, scope: "openid", codeChallenge: challenge }),
      {
        headers: { cookie: cookie ?? "" },
      },
    );
    expect(new URL(again.headers.get("location") ?? "").pathname).toBe("/liqueur-lemon-money-forword/consent");
    const other = await startLogin({ client: sampleClientIds.gungnir, redirectUri: appRedirectUri("gungnir-aurora") });
    const { redirect_to } = (await (await login(other.challenge, email)).json()) as { redirect_to: string };
    expect(new URL((await follow(redirect_to)).location).searchParams.get("code")).toBeTruthy();
  });

  it("skips consent for a request that names no scope (the site's own authorization)", async () => {
    await seedUser({ email });
    const { challenge } = await startLogin({ client: partner, redirectUri: partnerApp, scope: "" });
    const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
    const { location } = await follow(redirect_to);
    expect(`${location.origin}${location.pathname}`).toBe(partnerApp);
    expect(location.searchParams.get("code")).toBeTruthy();
  });

  it("describes the consent request for the site to show, without using the challenge up", async () => {
    await seedUser({ email });
    const { consentUrl } = await reachConsent("balance email");
    const challenge = consentUrl.searchParams.get("consent_challenge");
    for (let read = 0; read < 2; read += 1) {
      const described = await call(`/auth/v1/consent?consent_challenge=${challenge}`);
      expect(described.status).toBe(200);
      expect(await described.json()).toMatchObject({
        challenge,
        client_id: partner,
        service_id: "liqueur-lemon-money-forword",
        requested_scope: ["balance", "email"],
      });
    }
    expect((await accept(challenge, ["balance", "email"])).status).toBe(200);
    const missing = await call("/auth/v1/consent");
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ type: "invalid_request" });
    expect(await (await call("/auth/v1/consent?consent_challenge=never-issued")).json()).toMatchObject({
      type: "challenge_not_found",
    });
  });

  it("grants only requested scopes", async () => {
    await seedUser({ email });
    const { consentUrl } = await reachConsent("balance email");
    const challenge = consentUrl.searchParams.get("consent_challenge");
    const extra = await accept(challenge, ["balance", "user.write"]);
    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({ type: "invalid_request" });
    const { redirect_to } = (await (await accept(challenge, ["balance"])).json()) as { redirect_to: string };
    expect(new URL((await follow(redirect_to)).location).searchParams.get("scope")).toBe("balance");
  });

  it("uses a consent challenge once, and not after 30 minutes", async () => {
    await seedUser({ email });
    const first = (await reachConsent()).consentUrl.searchParams.get("consent_challenge");
    expect((await accept(first)).status).toBe(200);
    expect(await (await accept(first)).json()).toMatchObject({ type: "challenge_not_found" });
    expect((await call(`/auth/v1/consent?consent_challenge=${first}`)).status).toBe(404);
    const second = (await reachConsent()).consentUrl.searchParams.get("consent_challenge");
    await setClock(30 * 60_000 + 1000);
    const expired = await accept(second);
    expect(expired.status).toBe(410);
    expect(await expired.json()).toMatchObject({ type: "challenge_expired" });
    expect((await call(`/auth/v1/consent?consent_challenge=${second}`)).status).toBe(410);
    expect((await postJson("/auth/v1/consent", { consent_challenge: second })).status).toBe(400);
  });
});
