import type { RawClient } from "../schema";

/** One client id per kind of brand that tests and fixtures reach for by meaning. */
export const sampleClientIds = {
  client: "dhumuqc8afmvbqhdsrlaji98w9",
  lemon: "irz7ag7wlvichh4nhcvnj8t5g7",
  partner: "kjwnvwsjy9hxi42fhw0ex0rory",
  totpOnly: "ua81dey1u86q8lpa4a2g3ihpz0",
  advisor: "a0iussnxlnu1pslv51wp6ed5xb",
  gungnir: "egkbyhoqfgn5jfjjk06bapplqr",
  izarra: "btuxbmqhbeozoh58c0aj5et3bh",
  nosh: "drsshlisthl32a524ocro449ja",
} as const;

/**
 * Custom URL schemes a brand's native app has registered with its platform, and the brand whose app owns each.
 * A redirect URI that is not https must use one of these, and only for a client of that brand
 * (`npm run brands:check`), so no client can name another brand's app.
 */
export const appSchemes: Record<string, string> = {
  "jp.example.aurora": "gungnir-aurora",
};

/** The app's registered redirect URI on its own https host (the tests' apps listen there). */
const appCallback = (serviceId: string) => `https://app.${serviceId}.example/oauth/callback`;

/**
 * External OAuth2 client id → its brand and its app's registered redirect URIs (architecture §8: the entry
 * accepts no other app_url + callback_path, and the emulator registers its clients from this same list).
 * Several brands have a web and an app client; an app may also register its own URL scheme.
 */
export const clients: Record<string, RawClient> = {
  [sampleClientIds.client]: { serviceId: "client", redirectUris: [appCallback("client")] },
  oqawrdtpgg8bzo6gxfo6jx6klb: { serviceId: "client", redirectUris: [appCallback("client")] },
  [sampleClientIds.lemon]: { serviceId: "liqueur-lemon", redirectUris: [appCallback("liqueur-lemon")] },
  "0bytrs5pi7z7f780xyyge7xtb2": { serviceId: "liqueur-lemon", redirectUris: [appCallback("liqueur-lemon")] },
  [sampleClientIds.partner]: {
    serviceId: "liqueur-lemon-money-forword",
    redirectUris: [appCallback("liqueur-lemon-money-forword")],
  },
  [sampleClientIds.totpOnly]: { serviceId: "izarra-astra", redirectUris: [appCallback("izarra-astra")] },
  [sampleClientIds.advisor]: { serviceId: "gungnir-minamo", redirectUris: [appCallback("gungnir-minamo")] },
  [sampleClientIds.gungnir]: {
    serviceId: "gungnir-aurora",
    redirectUris: [appCallback("gungnir-aurora"), "jp.example.aurora://oauth/callback"],
  },
  "4daf6nu5f8rayo55j7n9nw9ute": { serviceId: "gungnir-hayate", redirectUris: [appCallback("gungnir-hayate")] },
  sx0xvgukuyfo1kh47tai282lf2: { serviceId: "gungnir-kohaku", redirectUris: [appCallback("gungnir-kohaku")] },
  bks9llnza0pseenrsshmlwgx6s: { serviceId: "gungnir-hisui", redirectUris: [appCallback("gungnir-hisui")] },
  ecxq2p8fcslu80g25uyqmtksut: { serviceId: "gungnir-tsumugi", redirectUris: [appCallback("gungnir-tsumugi")] },
  [sampleClientIds.izarra]: { serviceId: "izarra-hamanasu", redirectUris: [appCallback("izarra-hamanasu")] },
  "9brxed2u61rriawd3w7za87euj": { serviceId: "izarra-kasumi", redirectUris: [appCallback("izarra-kasumi")] },
  "5vkfo5pw84vqqw46u0qtxndowy": { serviceId: "izarra-kotonoha", redirectUris: [appCallback("izarra-kotonoha")] },
  nawkn7put0expongz4jh1qvovz: { serviceId: "liqueur-ume", redirectUris: [appCallback("liqueur-ume")] },
  hzux3g1a3vx5bpe9rqwsjrm5ap: { serviceId: "liqueur-yuzu", redirectUris: [appCallback("liqueur-yuzu")] },
  [sampleClientIds.nosh]: { serviceId: "nosh-shirotae", redirectUris: [appCallback("nosh-shirotae")] },
  pawlrrw5ug229blt3wrj0zpuy5: { serviceId: "nosh-umikaze", redirectUris: [appCallback("nosh-umikaze")] },
  hkjqjupb4w28aych96bbzetwtg: { serviceId: "nosh-homura", redirectUris: [appCallback("nosh-homura")] },
  "19tbvppb0ydvlgvwh3xp08ygzq": { serviceId: "nosh-tsukimi", redirectUris: [appCallback("nosh-tsukimi")] },
  cxa1ovdpoeaup7a4tn9lmcu4er: { serviceId: "nosh-chanoki", redirectUris: [appCallback("nosh-chanoki")] },
};
