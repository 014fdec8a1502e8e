import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { readMeta, writeMeta } from "../state/store";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** The ES256 key pair, generated once and kept in SQLite so tokens survive a restart of `npm run dev`. */
export async function loadSigningKey(sql: SqlStorage): Promise<SigningKey> {
  const stored = readMeta(sql, "signing_key");
  let privateJwk: JWK;
  if (stored === undefined) {
    const pair = await generateKeyPair("ES256", { extractable: true });
    privateJwk = await exportJWK(pair.privateKey);
    writeMeta(sql, "signing_key", JSON.stringify(privateJwk));
  } else {
    privateJwk = JSON.parse(stored) as JWK;
  }
  const { d: _private, ...publicPart } = privateJwk;
  const kid = await calculateJwkThumbprint(publicPart);
  const publicJwk: JWK = { ...publicPart, kid, alg: "ES256", use: "sig" };
  return {
    kid,
    privateKey: (await importJWK(privateJwk, "ES256")) as CryptoKey,
    publicKey: (await importJWK(publicPart, "ES256")) as CryptoKey,
    publicJwk,
  };
}
