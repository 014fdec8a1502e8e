import { runInDurableObject } from "cloudflare:test";
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import {
  type AuthenticationCredentialJSON,
  type CreationOptionsJSON,
  type RegistrationCredentialJSON,
  type RequestOptionsJSON,
  SoftAuthenticator,
  type SoftAuthenticatorOptions,
  TEST_AAGUID,
  toBase64url,
} from "../support/softAuthenticator";
import { TOTP_SECRET } from "../support/vocabulary";
import {
  type AuthorizeOptions,
  authorizeUrl,
  bearer,
  call,
  clientId,
  exchangeCode,
  fileState,
  follow,
  latestMail,
  login,
  outbox,
  pkcePair,
  postJson,
  refresh,
  registered,
  resetEmulator,
  seedUser,
  setClock,
  site,
  startLogin,
  tokensFor,
} from "./emulatorClient";

// docs/passkeys.md: the contract, with real WebAuthn responses from a software authenticator.

beforeEach(resetEmulator);

const email = "passkey@example.jp";
const otherEmail = "someone-else@example.jp";
const base = "/auth/v1/passkeys";
const scope = "openid user.write";
const minute = 60_000;

interface ServerResponse {
  status: "ok" | "failed";
  errorMessage: string;
  type?: string;
}

interface ListedPasskey {
  id: string;
  name: string | null;
  aaguid: string;
  created_at: string;
  last_used_at: string | null;
  backed_up: boolean;
  transports: string[];
  suspended: boolean;
}

interface TokenSet {
  access_token: string;
  refresh_token: string;
  id_token: string;
}

type Session = { session: string };

/** A successful ServerResponse with the expected status, and its fields. */
async function answer<T>(response: Response, status: number): Promise<T> {
  const body = (await response.json()) as ServerResponse & T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ status: "ok", errorMessage: "" });
  return body;
}

/** A failed ServerResponse: the status, `type`, and a message that is never empty. */
async function expectFailure(response: Response, status: number, type: string): Promise<ServerResponse> {
  const body = (await response.json()) as ServerResponse;
  expect({ status: response.status, type: body.type }).toEqual({ status, type });
  expect(body.status).toBe("failed");
  expect(body.errorMessage).not.toBe("");
  return body;
}

/** What a passkey call is made on: a bearer access token, or a password login's enrolment ticket (`{ticket}`). */
type Authority = string | { ticket: string };

function authorization(authority: Authority): Record<string, string> {
  return typeof authority === "string" ? bearer(authority) : { authorization: `PasskeyEnrolment ${authority.ticket}` };
}

function passkeyCall(method: string, path: string, authority?: Authority, body?: unknown): Promise<Response> {
  const headers = authority === undefined ? {} : authorization(authority);
  return body === undefined
    ? call(`${base}${path}`, { method, headers })
    : postJson(`${base}${path}`, body, { method, headers });
}

/** A password sign-in's access token (and its refresh token), with the scope the site asks for. */
async function passwordTokens(address = email): Promise<TokenSet> {
  return (await tokensFor(address, { scope })) as unknown as TokenSet;
}

async function mailedCode(authority: Authority, address = email): Promise<string> {
  await answer(await passkeyCall("POST", "/registration/code", authority), 201);
  const { code, subject } = await latestMail(address);
  expect(subject).toContain("パスキー登録の確認コード");
  return code ?? "";
}

function creationOptions(authority: Authority, body: object = {}): Promise<Response> {
  return passkeyCall("POST", "/attestation/options", authority, body);
}

/** Registration options for a password sign-in: a code is mailed, then given. */
async function optionsWithCode(authority: Authority, address = email): Promise<CreationOptionsJSON & Session> {
  return answer(await creationOptions(authority, { email_code: await mailedCode(authority, address) }), 200);
}

/** Registration options for a passkey sign-in, which needs no code. */
async function optionsWithoutCode(token: string): Promise<CreationOptionsJSON & Session> {
  return answer(await creationOptions(token), 200);
}

function attestationResult(
  authority: Authority,
  session: string,
  credential: RegistrationCredentialJSON,
  name?: string,
): Promise<Response> {
  return passkeyCall("POST", "/attestation/result", authority, {
    session,
    ...(name === undefined ? {} : { name }),
    ...credential,
  });
}

async function requestOptions(loginChallenge: string): Promise<RequestOptionsJSON & Session> {
  return answer(await postJson(`${base}/assertion/options`, { login_challenge: loginChallenge }), 200);
}

function assertionResult(
  loginChallenge: string,
  session: string,
  credential: AuthenticationCredentialJSON,
): Promise<Response> {
  return postJson(`${base}/assertion/result`, {
    login_challenge: loginChallenge,
    session,
    remember: false,
    device_id: "device-of-the-passkey",
    ...credential,
  });
}

/** A login challenge, the assertion options for it and their session. */
async function assertionCeremony(options: AuthorizeOptions = {}) {
  const { challenge: loginChallenge, verifier } = await startLogin({ scope, ...options });
  const { session, ...request } = await requestOptions(loginChallenge);
  return { loginChallenge, verifier, session, request };
}

/** Follows an accepted login to the site's /callback and exchanges the code: the tokens and the session cookie. */
async function finish(redirectTo: string, verifier: string): Promise<TokenSet & { cookie: string }> {
  const { location, cookie } = await follow(redirectTo);
  const code = location.searchParams.get("code");
  if (code === null || cookie === undefined) throw new Error(`no code or cookie at ${location}`);
  const exchanged = await exchangeCode(code, verifier);
  expect(exchanged.status).toBe(200);
  return { ...((await exchanged.json()) as TokenSet), cookie };
}

/** A whole passkey sign-in, from /oauth2/auth to the tokens. */
async function passkeySignIn(authenticator: SoftAuthenticator): Promise<TokenSet & { cookie: string }> {
  const { loginChallenge, verifier, session, request } = await assertionCeremony();
  const result = await assertionResult(loginChallenge, session, await authenticator.authenticate(request));
  const { redirect_to } = await answer<{ redirect_to: string }>(result, 201);
  return finish(redirect_to, verifier);
}

/** A user with a passkey registered after a password sign-in (one mailed code), and its authenticator. */
async function enrolled(address = email, options: Partial<SoftAuthenticatorOptions> = {}) {
  const username = await seedUser({ email: address });
  const { access_token: token } = await passwordTokens(address);
  const authenticator = new SoftAuthenticator({ origin: site, ...options });
  const { session, ...creation } = await optionsWithCode(token, address);
  const { credential } = await answer<{ credential: ListedPasskey }>(
    await attestationResult(token, session, await authenticator.register(creation)),
    201,
  );
  return { username, token, authenticator, credentialId: credential.id };
}

async function listed(token: string): Promise<ListedPasskey[]> {
  return (await answer<{ credentials: ListedPasskey[] }>(await passkeyCall("GET", "", token), 200)).credentials;
}

async function claimsOf(idToken: string): Promise<JWTPayload> {
  const jwks = (await (await call("/.well-known/jwks.json")).json()) as JSONWebKeySet;
  return (await jwtVerify(idToken, createLocalJWKSet(jwks), { issuer: site, audience: clientId })).payload;
}

/** Now by the emulator clock, in whole seconds, as `auth_time`. */
function secondsAt(offsetMs = 0): number {
  return Math.floor((Date.now() + offsetMs) / 1000);
}

describe("registration then sign-in", () => {
  it("registers a passkey after a password sign-in and a mailed code, and signs in with it end to end", async () => {
    await seedUser({ email });
    const { access_token: token } = await passwordTokens();
    const { session, ...creation } = await optionsWithCode(token);
    expect(creation).toMatchObject({
      rp: { id: "localhost", name: "カザハナ証券" },
      user: { name: email, displayName: email },
      pubKeyCredParams: [
        { type: "public-key", alg: -8 },
        { type: "public-key", alg: -7 },
        { type: "public-key", alg: -257 },
      ],
      timeout: 300_000,
      excludeCredentials: [],
      authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      attestation: "none",
      extensions: { credProps: true },
    });
    // 32 random bytes each, base64url
    expect(creation.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(creation.user.id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const authenticator = new SoftAuthenticator({ origin: site });
    const registered = await attestationResult(token, session, await authenticator.register(creation), "iPhone");
    const { credential } = await answer<{ credential: ListedPasskey }>(registered, 201);
    expect(credential).toEqual({
      id: authenticator.credentialIds[0],
      name: "iPhone",
      aaguid: TEST_AAGUID,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
      backed_up: false,
      transports: ["internal", "hybrid"],
      suspended: false,
    });
    const added = await latestMail(email);
    expect(added.subject).toBe("【カザハナ証券】パスキーが登録されました");
    expect(added.text).toContain("「iPhone」");

    const { loginChallenge, verifier, session: assertionSession, request } = await assertionCeremony();
    expect(request).toEqual({
      status: "ok",
      errorMessage: "",
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      timeout: 300_000,
      rpId: "localhost",
      allowCredentials: [],
      userVerification: "required",
    });
    const signedIn = await assertionResult(loginChallenge, assertionSession, await authenticator.authenticate(request));
    const { redirect_to } = await answer<{ redirect_to: string }>(signedIn, 201);
    expect(redirect_to).toMatch(/^http:\/\/localhost:5173\/oauth2\/auth\?.*login_verifier=/);
    const tokens = await finish(redirect_to, verifier);
    const claims = await claimsOf(tokens.id_token);
    expect(claims).toMatchObject({ sub: await usernameOf(email), acr: "phr", amr: ["pop", "mfa"] });
    expect(Math.abs((claims.auth_time as number) - secondsAt())).toBeLessThanOrEqual(5);
    // the access token tells the API the same
    expect(decodeJwt(tokens.access_token)).toMatchObject({ acr: "phr", auth_time: claims.auth_time });

    const [listedPasskey] = await listed(tokens.access_token);
    expect(listedPasskey?.last_used_at).not.toBeNull();
    expect(Date.parse(listedPasskey?.last_used_at ?? "")).toBeGreaterThanOrEqual(Date.parse(credential.created_at));
  });

  it("answers the same options to everyone: no account or passkey shows", async () => {
    await enrolled();
    const shape = (options: RequestOptionsJSON) => ({ ...options, challenge: "…" });
    const first = await assertionCeremony();
    const second = await assertionCeremony();
    expect(shape(first.request)).toEqual(shape(second.request));
    expect(first.request.allowCredentials).toEqual([]);
    expect(first.request.challenge).not.toBe(second.request.challenge);
    expect(first.session).not.toBe(second.session);
  });

  it("refuses a login challenge that is unknown or expired, as POST /auth/v1/login", async () => {
    await expectFailure(
      await postJson(`${base}/assertion/options`, { login_challenge: "never-issued" }),
      404,
      "challenge_not_found",
    );
    const { challenge } = await startLogin();
    await setClock(30 * minute + 1000);
    await expectFailure(
      await postJson(`${base}/assertion/options`, { login_challenge: challenge }),
      410,
      "challenge_expired",
    );
  });

  it("lists the account's passkeys in excludeCredentials and refuses one registered again (credential_exists)", async () => {
    const { authenticator, credentialId } = await enrolled();
    const { access_token: token } = await passkeySignIn(authenticator);
    const { session, ...creation } = await optionsWithoutCode(token);
    expect(creation.excludeCredentials).toEqual([
      { type: "public-key", id: credentialId, transports: ["internal", "hybrid"] },
    ]);
    // an honest authenticator refuses to make a second passkey for the account
    await expect(authenticator.register(creation)).rejects.toThrow(/excluded/);
    const again = await authenticator.register(creation, { credentialId });
    await expectFailure(await attestationResult(token, session, again), 409, "credential_exists");
    expect(await listed(token)).toHaveLength(1);
  });

  it("keeps one user handle per account, for every passkey", async () => {
    const { authenticator } = await enrolled();
    const { access_token: token } = await passkeySignIn(authenticator);
    const first = await optionsWithoutCode(token);
    const second = await optionsWithoutCode(token);
    expect(second.user.id).toBe(first.user.id);
    await enrolled(otherEmail);
    const { access_token: otherToken } = await passwordTokens(otherEmail);
    expect((await optionsWithCode(otherToken, otherEmail)).user.id).not.toBe(first.user.id);
  });

  it("accepts an authenticator that keeps no counter (0 every time), as synced passkeys", async () => {
    const { authenticator } = await enrolled(email, { counterStep: 0, backedUp: true });
    for (let attempt = 0; attempt < 3; attempt += 1) await passkeySignIn(authenticator);
    const [passkey] = await listed((await passkeySignIn(authenticator)).access_token);
    expect(passkey).toMatchObject({ backed_up: true, suspended: false });
  });

  it("refuses a passkey sign-in during a system transfer, as a password one (reject_login)", async () => {
    const { username, authenticator } = await enrolled();
    await runInDurableObject(fileState("global"), (_instance, state) => {
      state.storage.sql.exec("UPDATE users SET transfer_in_progress = 1 WHERE username = ?", username);
    });
    const { loginChallenge, session, request } = await assertionCeremony();
    const response = await assertionResult(loginChallenge, session, await authenticator.authenticate(request));
    await expectFailure(response, 403, "reject_login");
  });
});

async function usernameOf(address: string): Promise<string> {
  return ((await (await call(`/__emulator/users/${address}`)).json()) as { username: string }).username;
}

describe("what the relying party checks", () => {
  const wrongOrigins = ["https://localhost:5173", "http://localhost:5174", "http://evil.localhost:5173"];

  it("refuses a registration made at another origin, or for another RP ID, or without user verification", async () => {
    const { authenticator } = await enrolled();
    const { access_token: token } = await passkeySignIn(authenticator);
    type Make = (options: CreationOptionsJSON) => Promise<RegistrationCredentialJSON>;
    const fresh = (options: Partial<SoftAuthenticatorOptions> = {}) =>
      new SoftAuthenticator({ origin: site, ...options });
    const cases: [Make, RegExp][] = [
      ...wrongOrigins.map((origin): [Make, RegExp] => [(options) => fresh().register(options, { origin }), /origin/]),
      [(options) => fresh().register(options, { rpId: "evil.example" }), /RP ID/],
      [(options) => fresh({ userVerified: false }).register(options), /verif/i],
      [(options) => fresh().register(options, { userPresent: false }), /presen/i],
      [(options) => fresh().register(options, { type: "webauthn.get" }), /type/],
    ];
    for (const [make, reason] of cases) {
      const { session, ...creation } = await optionsWithoutCode(token);
      const response = await attestationResult(token, session, await make(creation));
      expect((await expectFailure(response, 400, "invalid_credential")).errorMessage).toMatch(reason);
      // the failed result ended its session: the honest response comes too late
      const honest = await fresh().register(creation);
      await expectFailure(await attestationResult(token, session, honest), 410, "ceremony_expired");
    }
    const { session, ...creation } = await optionsWithoutCode(token);
    await answer(await attestationResult(token, session, await fresh().register(creation)), 201);
  });

  it("refuses a sign-in at another origin, for another RP ID, or without user verification, alike", async () => {
    const { authenticator } = await enrolled();
    type Make = (request: RequestOptionsJSON) => Promise<AuthenticationCredentialJSON>;
    const cases: Make[] = [
      ...wrongOrigins.map(
        (origin): Make =>
          (request) =>
            authenticator.authenticate(request, { origin }),
      ),
      (request) => authenticator.authenticate(request, { rpId: "evil.example" }),
      (request) => authenticator.authenticate(request, { userVerified: false }),
      (request) => authenticator.authenticate(request, { userPresent: false }),
      (request) => authenticator.authenticate(request, { type: "webauthn.create" }),
    ];
    const answers = new Set<string>();
    for (const make of cases) {
      // a login challenge each, so that no cap is reached
      const { loginChallenge, session, request } = await assertionCeremony();
      const response = await assertionResult(loginChallenge, session, await make(request));
      answers.add(JSON.stringify(await expectFailure(response, 401, "invalid_credential")));
    }
    expect(answers.size).toBe(1);
    await passkeySignIn(authenticator);
  });

  it("uses a challenge once: a failed result ends its session, and an old response fits no other session", async () => {
    const { authenticator } = await enrolled();
    const { loginChallenge, session, request } = await assertionCeremony();
    const bent = await authenticator.authenticate(request, { userHandle: toBase64url(new Uint8Array(32)) });
    await expectFailure(await assertionResult(loginChallenge, session, bent), 401, "invalid_credential");
    const honest = await authenticator.authenticate(request);
    await expectFailure(await assertionResult(loginChallenge, session, honest), 410, "ceremony_expired");
    // the honest response on a fresh session of the same login challenge: it signed another challenge
    const fresh = await requestOptions(loginChallenge);
    await expectFailure(await assertionResult(loginChallenge, fresh.session, honest), 401, "invalid_credential");
    const last = await requestOptions(loginChallenge);
    await answer(await assertionResult(loginChallenge, last.session, await authenticator.authenticate(last)), 201);

    const { access_token: token } = await passkeySignIn(authenticator);
    const { session: registration, ...creation } = await optionsWithoutCode(token);
    const made = await new SoftAuthenticator({ origin: site }).register(creation);
    await answer(await attestationResult(token, registration, made), 201);
    await expectFailure(await attestationResult(token, registration, made), 410, "ceremony_expired");
    const next = await optionsWithoutCode(token);
    await expectFailure(await attestationResult(token, next.session, made), 400, "invalid_credential");
  });

  it("binds a session to its ceremony, its user and its login challenge", async () => {
    const { authenticator } = await enrolled();
    const { access_token: token } = await passkeySignIn(authenticator);
    await enrolled(otherEmail);
    const { access_token: otherToken } = await passwordTokens(otherEmail);

    // a registration session is for one user: another user's token finds nothing, and the session stays its owner's
    const { session: registration, ...creation } = await optionsWithoutCode(token);
    const made = await new SoftAuthenticator({ origin: site }).register(creation);
    await expectFailure(await attestationResult(otherToken, registration, made), 410, "ceremony_expired");
    // …and it is no sign-in session
    const signIn = await assertionCeremony();
    const signature = await authenticator.authenticate(signIn.request);
    await expectFailure(await assertionResult(signIn.loginChallenge, registration, signature), 410, "ceremony_expired");
    await answer(await attestationResult(token, registration, made), 201);

    // a sign-in session is for one login challenge, and no registration session
    const elsewhere = await assertionCeremony();
    await expectFailure(
      await assertionResult(elsewhere.loginChallenge, signIn.session, signature),
      410,
      "ceremony_expired",
    );
    const other = await new SoftAuthenticator({ origin: site }).register(await optionsWithoutCode(token));
    await expectFailure(await attestationResult(token, signIn.session, other), 410, "ceremony_expired");
    await answer(await assertionResult(signIn.loginChallenge, signIn.session, signature), 201);
  });

  it("expires a session after 5 minutes, by the emulator clock", async () => {
    const { authenticator } = await enrolled();
    const { access_token: token } = await passkeySignIn(authenticator);
    const { session: registration, ...creation } = await optionsWithoutCode(token);
    const { loginChallenge: challenge, session, request } = await assertionCeremony();
    await setClock(5 * minute + 1000);
    const made = await new SoftAuthenticator({ origin: site }).register(creation);
    await expectFailure(await attestationResult(token, registration, made), 410, "ceremony_expired");
    const signature = await authenticator.authenticate(request);
    await expectFailure(await assertionResult(challenge, session, signature), 410, "ceremony_expired");
  });

  it("answers an unknown credential and a wrong user handle alike", async () => {
    const { authenticator } = await enrolled();
    await enrolled(otherEmail);
    const otherHandle = (await optionsWithCode((await passwordTokens(otherEmail)).access_token, otherEmail)).user.id;
    // a passkey the emulator never saw: made for a registration that was never sent
    const stranger = new SoftAuthenticator({ origin: site });
    await stranger.register({ challenge: "AAAA", rp: { id: "localhost" }, user: { id: otherHandle } });
    const bent: ((request: RequestOptionsJSON) => Promise<AuthenticationCredentialJSON>)[] = [
      (request) => stranger.authenticate(request),
      (request) => authenticator.authenticate(request, { userHandle: otherHandle }),
      (request) => authenticator.authenticate(request, { userHandle: toBase64url(new Uint8Array(32)) }),
      (request) => authenticator.authenticate(request, { userHandle: null }),
    ];
    const answers = new Set<string>();
    for (const make of bent) {
      const { loginChallenge: challenge, session, request } = await assertionCeremony();
      const refused = await expectFailure(
        await assertionResult(challenge, session, await make(request)),
        401,
        "invalid_credential",
      );
      answers.add(JSON.stringify(refused));
    }
    expect(answers.size).toBe(1);
    await passkeySignIn(authenticator);
  });

  it("ends the login challenge after 5 failed assertions", async () => {
    const { authenticator } = await enrolled();
    const { challenge } = await startLogin({ scope });
    const kept = await requestOptions(challenge);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const { session, ...request } = await requestOptions(challenge);
      const wrong = await authenticator.authenticate(request, { userHandle: toBase64url(new Uint8Array(32)) });
      await expectFailure(await assertionResult(challenge, session, wrong), 401, "invalid_credential");
    }
    // dead for every call, even with a good assertion on a session issued before
    const { session, ...request } = kept;
    await expectFailure(
      await assertionResult(challenge, session, await authenticator.authenticate(request)),
      410,
      "challenge_expired",
    );
    await expectFailure(
      await postJson(`${base}/assertion/options`, { login_challenge: challenge }),
      410,
      "challenge_expired",
    );
    expect((await login(challenge, email)).status).toBe(410);
    expect((await call(`/auth/v1/login?login_challenge=${challenge}`)).status).toBe(410);
    // another login challenge is not affected
    await passkeySignIn(authenticator);
  });
});

describe("the signature counter", () => {
  it("suspends a passkey whose counter does not grow, mails the account, and refuses it from then on", async () => {
    const { authenticator, credentialId } = await enrolled();
    await passkeySignIn(authenticator);
    expect(authenticator.counterOf(credentialId)).toBe(1);
    const copy = authenticator.clone();
    const { access_token: token } = await passkeySignIn(authenticator);
    const before = (await outbox(email)).length;

    const { loginChallenge: challenge, session, request } = await assertionCeremony();
    await expectFailure(
      await assertionResult(challenge, session, await copy.authenticate(request)),
      403,
      "cloned_authenticator",
    );
    expect(await listed(token)).toMatchObject([{ id: credentialId, suspended: true }]);
    const mails = await outbox(email);
    expect(mails).toHaveLength(before + 1);
    expect(mails[0]?.subject).toBe("【カザハナ証券】パスキーの利用を停止しました");

    // the original is suspended too (the passkey is), with no second mail
    const again = await assertionCeremony();
    await expectFailure(
      await assertionResult(again.loginChallenge, again.session, await authenticator.authenticate(again.request)),
      403,
      "cloned_authenticator",
    );
    expect(await outbox(email)).toHaveLength(before + 1);
  });

  it("refuses a counter that goes back", async () => {
    const { authenticator } = await enrolled();
    await passkeySignIn(authenticator);
    await passkeySignIn(authenticator);
    const { loginChallenge: challenge, session, request } = await assertionCeremony();
    await expectFailure(
      await assertionResult(challenge, session, await authenticator.authenticate(request, { counter: 1 })),
      403,
      "cloned_authenticator",
    );
  });

  it("does not suspend a passkey for a forged response with a low counter", async () => {
    const { authenticator, token } = await enrolled();
    await passkeySignIn(authenticator);
    const { loginChallenge: challenge, session, request } = await assertionCeremony();
    const forged = await authenticator.authenticate(request, { counter: 0 });
    const signature = forged.response.signature;
    forged.response.signature = `${signature.slice(0, -4)}${signature.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    await expectFailure(await assertionResult(challenge, session, forged), 401, "invalid_credential");
    expect(await listed(token)).toMatchObject([{ suspended: false }]);
    await passkeySignIn(authenticator);
  });
});

describe("the mailed code a registration needs after a password sign-in", () => {
  it("requires it unless the token's login was a passkey login", async () => {
    const { authenticator } = await enrolled();
    const { access_token: passwordToken } = await passwordTokens();
    await expectFailure(await creationOptions(passwordToken), 403, "email_code_required");
    const { access_token: passkeyToken } = await passkeySignIn(authenticator);
    await answer(await creationOptions(passkeyToken), 200);
  });

  it("requires it after a password and TOTP sign-in too", async () => {
    const secret = TOTP_SECRET;
    await seedUser({ email, mfa: { totp: secret } });
    const { challenge, verifier } = await startLogin({ scope });
    const { additional_flow } = (await (await login(challenge, email)).json()) as {
      additional_flow: { session: string };
    };
    const accepted = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "mfa_totp",
      username: email,
      session: additional_flow.session,
      code: new TOTP({ secret }).generate(),
    });
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const { access_token } = await finish(redirect_to, verifier);
    await expectFailure(await creationOptions(access_token), 403, "email_code_required");
  });

  it("refuses a wrong code 5 times, then the code is dead (expired_code) until a new one is mailed", async () => {
    await seedUser({ email });
    const { access_token: token } = await passwordTokens();
    const code = await mailedCode(token);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let attempt = 1; attempt <= 5; attempt += 1)
      await expectFailure(await creationOptions(token, { email_code: wrong }), 400, "invalid_code");
    await expectFailure(await creationOptions(token, { email_code: code }), 410, "expired_code");
    await answer(await creationOptions(token, { email_code: await mailedCode(token) }), 200);
  });

  it("uses a code once", async () => {
    await seedUser({ email });
    const { access_token: token } = await passwordTokens();
    const code = await mailedCode(token);
    await answer(await creationOptions(token, { email_code: code }), 200);
    await expectFailure(await creationOptions(token, { email_code: code }), 400, "invalid_code");
  });

  it("expires a code after 10 minutes", async () => {
    await seedUser({ email });
    const code = await mailedCode((await passwordTokens()).access_token);
    await setClock(10 * minute + 1000);
    // a fresh sign-in: the first one is older than 5 minutes now
    const { access_token: token } = await passwordTokens();
    await expectFailure(await creationOptions(token, { email_code: code }), 410, "expired_code");
  });

  it("mails at most 3 codes per account in 10 minutes; the last one stays valid", async () => {
    await seedUser({ email });
    await seedUser({ email: otherEmail });
    const { access_token: token } = await passwordTokens();
    const codes: string[] = [];
    for (let sent = 0; sent < 3; sent += 1) codes.push(await mailedCode(token));
    const refused = await passkeyCall("POST", "/registration/code", token);
    await expectFailure(refused, 429, "too_many_requests");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await outbox(email)).filter((mail) => mail.code)).toHaveLength(3);
    // another account has its own allowance
    await mailedCode((await passwordTokens(otherEmail)).access_token, otherEmail);
    await answer(await creationOptions(token, { email_code: codes[2] }), 200);
    await setClock(10 * minute + 1000);
    await answer(await passkeyCall("POST", "/registration/code", token), 201);
  });
});

describe("the 5-minute rule", () => {
  it("refuses to add or delete a passkey when the token's sign-in is older than 5 minutes, even refreshed", async () => {
    const { authenticator, credentialId } = await enrolled();
    const tokens = await passkeySignIn(authenticator);
    await setClock(5 * minute - 5000);
    await answer(await creationOptions(tokens.access_token), 200);
    await setClock(5 * minute + 1000);
    await expectFailure(await creationOptions(tokens.access_token), 403, "reauthentication_required");
    await expectFailure(
      await passkeyCall("DELETE", `/${credentialId}`, tokens.access_token),
      403,
      "reauthentication_required",
    );
    // a refresh is no sign-in
    const refreshed = (await (await refresh(tokens.refresh_token)).json()) as TokenSet;
    expect(decodeJwt(refreshed.access_token).auth_time).toBe(decodeJwt(tokens.access_token).auth_time);
    await expectFailure(await creationOptions(refreshed.access_token), 403, "reauthentication_required");
    // listing and renaming need no fresh sign-in
    expect(await listed(refreshed.access_token)).toHaveLength(1);
    await answer(await passkeyCall("PATCH", `/${credentialId}`, refreshed.access_token, { name: "Old phone" }), 200);
    // a new sign-in
    const fresh = await passkeySignIn(authenticator);
    await answer(await passkeyCall("DELETE", `/${credentialId}`, fresh.access_token), 200);
  });
});

describe("the passkey enrolment ticket of a password login", () => {
  interface Enrolment {
    ticket: string;
    expires_in: number;
  }
  interface Accepted {
    redirect_to: string;
    passkey_enrolment?: Enrolment;
  }
  const aTicket = { ticket: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_in: 600 };

  /** A password sign-in up to its accepted 201: the answer, and the PKCE verifier to follow redirect_to with. */
  async function passwordLogin(address = email): Promise<Accepted & { verifier: string }> {
    const { challenge, verifier } = await startLogin({ scope });
    const response = await login(challenge, address);
    expect(response.status).toBe(201);
    return { ...((await response.json()) as Accepted), verifier };
  }

  /** The enrolment ticket of a fresh password sign-in. */
  async function enrolmentOf(address = email): Promise<Enrolment> {
    const { passkey_enrolment } = await passwordLogin(address);
    if (passkey_enrolment === undefined) throw new Error("the password login's answer has no passkey_enrolment");
    return passkey_enrolment;
  }

  /** A login with a step after the password: the step's answer must carry no ticket; the final 201's body. */
  async function twoStepLogin(address: string, flow: string, step: () => Promise<object>): Promise<Accepted> {
    const { challenge } = await startLogin({ scope });
    const first = (await (await login(challenge, address)).json()) as { additional_flow: { session: string } };
    expect(first).not.toHaveProperty("passkey_enrolment");
    const { session } = first.additional_flow;
    const accepted = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow,
      username: address,
      session,
      ...(await step()),
    });
    expect(accepted.status).toBe(201);
    return (await accepted.json()) as Accepted;
  }

  it("comes with a password login's 201, for 10 minutes, a new one each login; the login goes on as ever", async () => {
    await seedUser({ email });
    const first = await passwordLogin();
    expect(first.passkey_enrolment).toEqual(aTicket);
    expect((await passwordLogin()).passkey_enrolment?.ticket).not.toBe(first.passkey_enrolment?.ticket);
    await finish(first.redirect_to, first.verifier);
  });

  it("comes with the final 201 of a TOTP, SMS or new-password login, not with the step before", async () => {
    const totp = TOTP_SECRET;
    const phone = "+8109012345678";
    await seedUser({ email: "totp@example.jp", mfa: { totp } });
    await seedUser({ email: "sms@example.jp", mfa: { sms: phone } });
    await seedUser({ email: "renew@example.jp", forceChangePassword: true });
    const byTotp = await twoStepLogin("totp@example.jp", "mfa_totp", async () => ({
      code: new TOTP({ secret: totp }).generate(),
    }));
    expect(byTotp.passkey_enrolment).toEqual(aTicket);
    const bySms = await twoStepLogin("sms@example.jp", "mfa_sms", async () => ({
      code: (await latestMail(phone)).code,
    }));
    expect(bySms.passkey_enrolment).toEqual(aTicket);
    const renewed = await twoStepLogin("renew@example.jp", "new_password", async () => ({ password: "N3w-Passw0rd" }));
    expect(renewed.passkey_enrolment).toEqual(aTicket);
    // a second factor is still no passkey login: the mailed code is asked
    const enrolment = byTotp.passkey_enrolment ?? { ticket: "" };
    await expectFailure(await creationOptions(enrolment), 403, "email_code_required");
    await answer(await creationOptions(enrolment, { email_code: await mailedCode(enrolment, "totp@example.jp") }), 200);
  });

  it("does not come with a passkey login's 201", async () => {
    const { authenticator } = await enrolled();
    expect((await passwordLogin()).passkey_enrolment).toEqual(aTicket);
    const { loginChallenge, session, request } = await assertionCeremony();
    const byPasskey = await answer<Accepted>(
      await assertionResult(loginChallenge, session, await authenticator.authenticate(request)),
      201,
    );
    expect(byPasskey.redirect_to).toBeTruthy();
    expect(byPasskey).not.toHaveProperty("passkey_enrolment");
  });

  it("comes with a sign-up's 201, and then needs no mailed code: the sign-up's own code proved the mailbox", async () => {
    const newcomer = "newcomer@example.jp";
    const { challenge, verifier } = await startLogin({ scope, view: "signUp" });
    const username = await registered(challenge, newcomer);
    const { code } = await latestMail(newcomer);
    const confirmed = await postJson("/auth/v1/register/confirm", {
      login_challenge: challenge,
      username,
      code,
      remember: false,
    });
    expect(confirmed.status).toBe(201);
    const signedUp = (await confirmed.json()) as Accepted;
    expect(signedUp.redirect_to).toBeTruthy();
    expect(signedUp.passkey_enrolment).toEqual(aTicket);
    const enrolment = signedUp.passkey_enrolment ?? { ticket: "" };
    const { session, ...creation } = await answer<CreationOptionsJSON & Session>(await creationOptions(enrolment), 200);
    expect(creation.user).toMatchObject({ name: newcomer });
    const authenticator = new SoftAuthenticator({ origin: site });
    await answer(await attestationResult(enrolment, session, await authenticator.register(creation)), 201);
    expect((await latestMail(newcomer)).subject).toBe("【カザハナ証券】パスキーが登録されました");
    // one passkey per ticket, as a login's
    await expectFailure(await creationOptions(enrolment), 401, "unauthorized");
    await finish(signedUp.redirect_to, verifier);
    const tokens = await passkeySignIn(authenticator);
    expect(await claimsOf(tokens.id_token)).toMatchObject({ sub: username, acr: "phr" });
  });

  it("registers a passkey instead of a bearer token, with the code mailed to the account; the passkey signs in", async () => {
    const username = await seedUser({ email });
    const { passkey_enrolment: enrolment, redirect_to, verifier } = await passwordLogin();
    if (enrolment === undefined) throw new Error("no ticket");
    // the code goes to the account's address (mailedCode reads it there)
    const { session, ...creation } = await optionsWithCode(enrolment);
    expect(creation.user).toMatchObject({ name: email, displayName: email });
    const authenticator = new SoftAuthenticator({ origin: site });
    const registeredPasskey = await attestationResult(
      enrolment,
      session,
      await authenticator.register(creation),
      "Mac",
    );
    const { credential } = await answer<{ credential: ListedPasskey }>(registeredPasskey, 201);
    expect(credential).toMatchObject({ id: authenticator.credentialIds[0], name: "Mac", suspended: false });
    const added = await latestMail(email);
    expect(added.subject).toBe("【カザハナ証券】パスキーが登録されました");
    expect(added.text).toContain("「Mac」");
    // the browser then goes on to the app, as after any password login
    await finish(redirect_to, verifier);

    const tokens = await passkeySignIn(authenticator);
    expect(await claimsOf(tokens.id_token)).toMatchObject({ sub: username, acr: "phr", amr: ["pop", "mfa"] });
    expect(await listed(tokens.access_token)).toMatchObject([{ id: credential.id, name: "Mac" }]);
  });

  it("always asks the mailed code: none is 403 email_code_required, a wrong one 400 invalid_code", async () => {
    await seedUser({ email });
    const enrolment = await enrolmentOf();
    await expectFailure(await creationOptions(enrolment), 403, "email_code_required");
    const code = await mailedCode(enrolment);
    const wrong = code === "000000" ? "111111" : "000000";
    await expectFailure(await creationOptions(enrolment, { email_code: wrong }), 400, "invalid_code");
    await answer(await creationOptions(enrolment, { email_code: code }), 200);
  });

  it("is spent by a passkey registered (one per ticket), not by a failed result", async () => {
    await seedUser({ email });
    const enrolment = await enrolmentOf();
    // a failed result spends its ceremony, not the ticket
    const { session: failed, ...failedCreation } = await optionsWithCode(enrolment);
    const elsewhere = await new SoftAuthenticator({ origin: site }).register(failedCreation, {
      origin: "https://localhost:5173",
    });
    await expectFailure(await attestationResult(enrolment, failed, elsewhere), 400, "invalid_credential");
    const late = await new SoftAuthenticator({ origin: site }).register(failedCreation);
    await expectFailure(await attestationResult(enrolment, failed, late), 410, "ceremony_expired");
    // two ceremonies open at once: the first passkey spends the ticket, the second finds it spent
    const first = await optionsWithCode(enrolment);
    const second = await optionsWithCode(enrolment);
    const made = await new SoftAuthenticator({ origin: site }).register(first);
    await answer(await attestationResult(enrolment, first.session, made), 201);
    const another = await new SoftAuthenticator({ origin: site }).register(second);
    await expectFailure(await attestationResult(enrolment, second.session, another), 401, "unauthorized");
    await expectFailure(await passkeyCall("POST", "/registration/code", enrolment), 401, "unauthorized");
    await expectFailure(await creationOptions(enrolment, { email_code: "000000" }), 401, "unauthorized");
    expect(await listed((await passwordTokens()).access_token)).toHaveLength(1);
  });

  it("answers an unknown ticket 401 unauthorized, exactly as a bad bearer token", async () => {
    await seedUser({ email });
    await answer(await passkeyCall("POST", "/registration/code", await enrolmentOf()), 201);
    const unknown = { ticket: "never-issued" };
    const calls: [string, object | undefined][] = [
      ["/registration/code", undefined],
      ["/attestation/options", { email_code: "000000" }],
      ["/attestation/result", {}],
    ];
    for (const [path, body] of calls) {
      const byTicket = await expectFailure(await passkeyCall("POST", path, unknown, body), 401, "unauthorized");
      const byToken = await expectFailure(await passkeyCall("POST", path, "not-a-token", body), 401, "unauthorized");
      expect(byTicket).toEqual(byToken);
    }
  });

  it("is refused by every other call: listing, renaming, deleting passkeys and the account calls", async () => {
    const { credentialId } = await enrolled();
    const enrolment = await enrolmentOf();
    const calls: [string, string, unknown][] = [
      ["GET", "", undefined],
      ["PATCH", `/${credentialId}`, { name: "x" }],
      ["DELETE", `/${credentialId}`, undefined],
    ];
    for (const [method, path, body] of calls)
      await expectFailure(await passkeyCall(method, path, enrolment, body), 401, "unauthorized");
    const accountCalls = [
      await call("/auth/v1/user/profile", { headers: authorization(enrolment) }),
      await postJson("/auth/v1/user/mfa/setup", { type: "totp" }, { headers: authorization(enrolment) }),
    ];
    for (const refused of accountCalls)
      expect({ status: refused.status, body: await refused.json() }).toMatchObject({
        status: 401,
        body: { type: "unauthorized" },
      });
    // nor is it a bearer token
    await expectFailure(await passkeyCall("POST", "/registration/code", enrolment.ticket), 401, "unauthorized");
    // while its own calls take it
    await answer(await passkeyCall("POST", "/registration/code", enrolment), 201);
    expect(await listed((await passwordTokens()).access_token)).toHaveLength(1);
  });

  it("expires 10 minutes after its login, by the emulator clock; the 5-minute rule is not applied to it", async () => {
    await seedUser({ email });
    const enrolment = await enrolmentOf();
    const { access_token: token } = await passwordTokens();
    await setClock(6 * minute);
    await expectFailure(await creationOptions(token), 403, "reauthentication_required");
    const { session, ...creation } = await optionsWithCode(enrolment);
    const made = await new SoftAuthenticator({ origin: site }).register(creation);
    await setClock(10 * minute + 1000);
    await expectFailure(await attestationResult(enrolment, session, made), 401, "unauthorized");
    await expectFailure(await passkeyCall("POST", "/registration/code", enrolment), 401, "unauthorized");
    // a fresh login's ticket finishes the same registration: the ceremony was for this user and still lives
    await answer(await attestationResult(await enrolmentOf(), session, made), 201);
  });

  it("binds a ceremony to the ticket's user: another user's session is ceremony_expired, and stays its owner's", async () => {
    await seedUser({ email });
    await seedUser({ email: otherEmail });
    const mine = await enrolmentOf();
    const theirs = await enrolmentOf(otherEmail);
    const { session: theirSession, ...theirCreation } = await optionsWithCode(theirs, otherEmail);
    const made = await new SoftAuthenticator({ origin: site }).register(theirCreation);
    await expectFailure(await attestationResult(mine, theirSession, made), 410, "ceremony_expired");
    await answer(await attestationResult(theirs, theirSession, made), 201);
    // and the refused ticket was not spent
    const { session, ...creation } = await optionsWithCode(mine);
    expect(creation.user.name).toBe(email);
    await answer(
      await attestationResult(mine, session, await new SoftAuthenticator({ origin: site }).register(creation)),
      201,
    );
  });
});

describe("listing, renaming and deleting", () => {
  it("lists the account's passkeys newest first, dated by the emulator clock", async () => {
    const { authenticator, credentialId } = await enrolled();
    await setClock(86_400_000);
    const { access_token: token } = await passkeySignIn(authenticator);
    const { session, ...creation } = await optionsWithoutCode(token);
    const second = new SoftAuthenticator({ origin: site });
    await answer(await attestationResult(token, session, await second.register(creation), "YubiKey"), 201);
    const passkeys = await listed(token);
    expect(passkeys.map((passkey) => passkey.id)).toEqual([second.credentialIds[0], credentialId]);
    expect(passkeys[0]).toMatchObject({ name: "YubiKey", last_used_at: null });
    expect(passkeys[1]).toMatchObject({ name: null, suspended: false });
    const dayLater = Date.parse(passkeys[0]?.created_at ?? "") - Date.now();
    expect(dayLater).toBeGreaterThan(86_400_000 - 60_000);
    expect(Date.parse(passkeys[1]?.last_used_at ?? "") - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
  });

  it("renames a passkey with 1 to 64 characters", async () => {
    const { token, credentialId } = await enrolled();
    const renamed = await passkeyCall("PATCH", `/${credentialId}`, token, { name: "仕事用 iPad" });
    expect((await answer<{ credential: ListedPasskey }>(renamed, 200)).credential).toMatchObject({
      id: credentialId,
      name: "仕事用 iPad",
    });
    expect(await listed(token)).toMatchObject([{ name: "仕事用 iPad" }]);
    for (const name of ["", " ", "x".repeat(65), "a\nb"])
      await expectFailure(await passkeyCall("PATCH", `/${credentialId}`, token, { name }), 400, "invalid_request");
    await answer(await passkeyCall("PATCH", `/${credentialId}`, token, { name: "x".repeat(64) }), 200);
  });

  it("answers 404 for another user's passkey, and lists only the account's own", async () => {
    const mine = await enrolled();
    const theirs = await enrolled(otherEmail);
    expect((await listed(mine.token)).map((passkey) => passkey.id)).toEqual([mine.credentialId]);
    await expectFailure(
      await passkeyCall("PATCH", `/${theirs.credentialId}`, mine.token, { name: "mine" }),
      404,
      "not_found",
    );
    await expectFailure(await passkeyCall("DELETE", `/${theirs.credentialId}`, mine.token), 404, "not_found");
    await expectFailure(await passkeyCall("DELETE", "/never-registered", mine.token), 404, "not_found");
    expect(await listed(theirs.token)).toMatchObject([{ id: theirs.credentialId, name: null }]);
  });

  it("deletes a passkey, mails the account, and the passkey signs nobody in any more", async () => {
    const { token, authenticator, credentialId } = await enrolled();
    await answer(await passkeyCall("PATCH", `/${credentialId}`, token, { name: "Pixel" }), 200);
    await answer(await passkeyCall("DELETE", `/${credentialId}`, token), 200);
    const removed = await latestMail(email);
    expect(removed.subject).toBe("【カザハナ証券】パスキーが削除されました");
    expect(removed.text).toContain("「Pixel」");
    expect(await listed(token)).toEqual([]);
    const { loginChallenge: challenge, session, request } = await assertionCeremony();
    const response = await assertionResult(challenge, session, await authenticator.authenticate(request));
    await expectFailure(response, 401, "invalid_credential");
  });

  it("answers 401 unauthorized without a good bearer token, on every bearer call", async () => {
    const { credentialId } = await enrolled();
    const calls: [string, string, unknown][] = [
      ["POST", "/registration/code", undefined],
      ["POST", "/attestation/options", {}],
      ["POST", "/attestation/result", {}],
      ["GET", "", undefined],
      ["PATCH", `/${credentialId}`, { name: "x" }],
      ["DELETE", `/${credentialId}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      await expectFailure(await passkeyCall(method, path, undefined, body), 401, "unauthorized");
      await expectFailure(await passkeyCall(method, path, "not-a-token", body), 401, "unauthorized");
    }
  });
});

describe("what a login claims: acr, amr and auth_time", () => {
  it("lists acr and amr in discovery", async () => {
    const discovery = (await (await call("/.well-known/openid-configuration")).json()) as Record<string, unknown>;
    expect(discovery.claims_supported).toEqual(expect.arrayContaining(["acr", "amr", "auth_time"]));
    expect(discovery.acr_values_supported).toEqual(["phr", "mfa", "pwd"]);
  });

  it("claims pwd for a password alone, mfa with pwd and otp or sms after a second factor", async () => {
    const totp = TOTP_SECRET;
    const phone = "+8109012345678";
    await seedUser({ email });
    await seedUser({ email: "totp@example.jp", mfa: { totp } });
    await seedUser({ email: "sms@example.jp", mfa: { sms: phone } });

    expect(await claimsOf((await passwordTokens()).id_token)).toMatchObject({ acr: "pwd", amr: ["pwd"] });

    async function secondFactor(address: string, flow: string, code: () => Promise<string>) {
      const { challenge, verifier } = await startLogin({ scope });
      const { additional_flow } = (await (await login(challenge, address)).json()) as {
        additional_flow: { session: string };
      };
      const body = { login_challenge: challenge, flow, username: address, session: additional_flow.session };
      const accepted = await postJson("/auth/v1/login", { ...body, code: await code() });
      const { redirect_to } = (await accepted.json()) as { redirect_to: string };
      return claimsOf((await finish(redirect_to, verifier)).id_token);
    }
    const byTotp = await secondFactor("totp@example.jp", "mfa_totp", async () => new TOTP({ secret: totp }).generate());
    expect(byTotp).toMatchObject({ acr: "mfa", amr: ["pwd", "otp", "mfa"] });
    const bySms = await secondFactor("sms@example.jp", "mfa_sms", async () => (await latestMail(phone)).code ?? "");
    expect(bySms).toMatchObject({ acr: "mfa", amr: ["pwd", "sms", "mfa"] });
  });

  it("keeps acr, amr and auth_time through a refresh", async () => {
    const { authenticator } = await enrolled();
    const tokens = await passkeySignIn(authenticator);
    const first = await claimsOf(tokens.id_token);
    await setClock(10 * minute);
    const refreshed = (await (await refresh(tokens.refresh_token)).json()) as TokenSet;
    expect(await claimsOf(refreshed.id_token)).toMatchObject({
      acr: "phr",
      amr: ["pop", "mfa"],
      auth_time: first.auth_time,
    });
  });
});

describe("remembered sessions and step-up (max_age, prompt, acr_values)", () => {
  /** /oauth2/auth with the browser's session cookie: the code of a skipped login, or the login asked instead. */
  async function authorizeWith(cookie: string, options: AuthorizeOptions = {}) {
    const pkce = await pkcePair();
    const response = await call(authorizeUrl({ scope, ...options, codeChallenge: pkce.challenge }), {
      headers: { cookie },
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    const code = location.searchParams.get("code");
    return {
      challenge: location.searchParams.get("login_challenge"),
      error: location.searchParams.get("error"),
      code,
      claims: async () =>
        claimsOf(((await (await exchangeCode(code ?? "", pkce.verifier)).json()) as TokenSet).id_token),
    };
  }

  async function passwordSession(): Promise<{ cookie: string; authTime: unknown }> {
    const { challenge, verifier } = await startLogin({ scope });
    const { redirect_to } = (await (await login(challenge, email)).json()) as { redirect_to: string };
    const { cookie, id_token } = await finish(redirect_to, verifier);
    return { cookie, authTime: (await claimsOf(id_token)).auth_time };
  }

  it("a skipped login claims what the session's password login achieved, never phr", async () => {
    await seedUser({ email });
    const { cookie, authTime } = await passwordSession();
    await setClock(2 * minute);
    const skipped = await authorizeWith(cookie, { extra: { acr_values: "phr" } });
    expect(skipped.challenge).toBeNull();
    expect(await skipped.claims()).toMatchObject({ acr: "pwd", amr: ["pwd"], auth_time: authTime });
  });

  it("a skipped login after a passkey login claims phr, with the passkey login's auth_time", async () => {
    const { authenticator } = await enrolled();
    const { cookie, id_token } = await passkeySignIn(authenticator);
    const { auth_time } = await claimsOf(id_token);
    await setClock(2 * minute);
    const skipped = await authorizeWith(cookie);
    expect(await skipped.claims()).toMatchObject({ acr: "phr", amr: ["pop", "mfa"], auth_time });
  });

  it("asks for a login when the session is older than max_age, or max_age is 0; prompt=none then fails", async () => {
    await seedUser({ email });
    const { cookie } = await passwordSession();
    expect((await authorizeWith(cookie, { extra: { max_age: "0" } })).challenge).not.toBeNull();
    expect((await authorizeWith(cookie, { extra: { max_age: "60" } })).code).not.toBeNull();
    await setClock(61_000);
    expect((await authorizeWith(cookie, { extra: { max_age: "60" } })).challenge).not.toBeNull();
    expect((await authorizeWith(cookie, { extra: { max_age: "120" } })).code).not.toBeNull();
    const none = await authorizeWith(cookie, { prompt: "none", extra: { max_age: "60" } });
    expect(none.error).toBe("login_required");
    for (const maxAge of ["-1", "abc", "1.5", ""]) {
      expect((await authorizeWith(cookie, { extra: { max_age: maxAge } })).error).toBe("invalid_request");
    }
  });

  it("steps a password session up to phr: prompt=login, acr_values in the login request, then a passkey", async () => {
    const { authenticator } = await enrolled();
    const { cookie } = await passwordSession();
    const asked = await authorizeWith(cookie, { prompt: "login", extra: { acr_values: "phr  mfa" } });
    const challenge = asked.challenge ?? "";
    const loginRequest = async (id: string) =>
      ((await (await call(`/auth/v1/login?login_challenge=${id}`)).json()) as { oidc_context: unknown }).oidc_context;
    expect(await loginRequest(challenge)).toEqual({ acr_values: ["phr", "mfa"] });
    expect(await loginRequest((await startLogin({ scope })).challenge)).toEqual({ acr_values: [] });

    const { session, ...options } = await requestOptions(challenge);
    const result = await assertionResult(challenge, session, await authenticator.authenticate(options));
    const { redirect_to } = await answer<{ redirect_to: string }>(result, 201);
    // the resumed authorization keeps what was asked
    expect(new URL(redirect_to).searchParams.get("acr_values")).toBe("phr mfa");
    const { location, cookie: stepped } = await follow(redirect_to, cookie);
    expect(stepped).not.toBe(cookie);
    expect(location.searchParams.get("code")).not.toBeNull();
    // the new session remembers the passkey login
    expect(await (await authorizeWith(stepped ?? "")).claims()).toMatchObject({ acr: "phr" });
  });
});
