/** One client id per kind of service that tests and fixtures reach for by meaning. */
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

/** External OAuth2 client id → service id; several services have a web and an app client. */
export const clients: Record<string, string> = {
  [sampleClientIds.client]: "client",
  oqawrdtpgg8bzo6gxfo6jx6klb: "client",
  [sampleClientIds.lemon]: "liqueur-lemon",
  "0bytrs5pi7z7f780xyyge7xtb2": "liqueur-lemon",
  [sampleClientIds.partner]: "liqueur-lemon-money-forword",
  [sampleClientIds.totpOnly]: "izarra-astra",
  [sampleClientIds.advisor]: "gungnir-minamo",
  [sampleClientIds.gungnir]: "gungnir-aurora",
  "4daf6nu5f8rayo55j7n9nw9ute": "gungnir-hayate",
  sx0xvgukuyfo1kh47tai282lf2: "gungnir-kohaku",
  bks9llnza0pseenrsshmlwgx6s: "gungnir-hisui",
  ecxq2p8fcslu80g25uyqmtksut: "gungnir-tsumugi",
  [sampleClientIds.izarra]: "izarra-hamanasu",
  "9brxed2u61rriawd3w7za87euj": "izarra-kasumi",
  "5vkfo5pw84vqqw46u0qtxndowy": "izarra-kotonoha",
  nawkn7put0expongz4jh1qvovz: "liqueur-ume",
  hzux3g1a3vx5bpe9rqwsjrm5ap: "liqueur-yuzu",
  [sampleClientIds.nosh]: "nosh-shirotae",
  pawlrrw5ug229blt3wrj0zpuy5: "nosh-umikaze",
  hkjqjupb4w28aych96bbzetwtg: "nosh-homura",
  "19tbvppb0ydvlgvwh3xp08ygzq": "nosh-tsukimi",
  cxa1ovdpoeaup7a4tn9lmcu4er: "nosh-chanoki",
};
