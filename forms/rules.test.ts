import { describe, expect, it } from "vitest";
import { brandPasswordWords, chosenPasswordMessageKeys, passwordContext } from "./passwordContext";
import {
  BLANK,
  code,
  email,
  loginId,
  PASSWORD_SYMBOLS,
  password,
  passwordChecklist,
  passwordForChange,
  phone,
  phoneForUpstream,
  type RuleOutcome,
  ruleMessageKeys,
  runRule,
} from "./rules";

describe("password (product §5)", () => {
  it.each([
    ["", BLANK],
    ["Ab1!", "password.length"],
    ["Abcdef1", "password.length"],
    ["Abcdef1!", null],
    [`${"A".repeat(250)}bc1!de`, "password.length"],
    [`${"A".repeat(249)}bc1!de`, null],
    ["ABCDEFG1!", "password.lowercase"],
    ["abcdefg1!", "password.uppercase"],
    ["Abcdefgh1", "password.symbol"],
    ["Abcdefgh!", "password.digit"],
    ["Abcdefg1!あ", "password.allowedCharacters"],
    ["Abcdef g1!", "password.allowedCharacters"],
    ["Abcdefg1\\", null],
    ["Abcdefg1`", null],
    ["Abcdefg1€", "password.symbol"],
    ["Abcdefg1!€", "password.allowedCharacters"],
  ])("%j → %s", (value, expected) => {
    expect(password(value)).toBe(expected);
  });

  it.each([...PASSWORD_SYMBOLS])("accepts the symbol %s", (symbol) => {
    expect(password(`Abcdefg1${symbol}`)).toBeNull();
  });

  it.each([
    ["Abcdefgh1", null],
    ["Abcdefg1あ", null],
    ["abcdefgh1", "password.uppercase"],
    ["Abc1", "password.length"],
  ])("skips the symbol and character checks under relaxed rules: %j → %s", (value, expected) => {
    expect(password(value, { passwordRules: "relaxed" })).toBe(expected);
    expect(passwordChecklist(value, { passwordRules: "relaxed" }).map((row) => row.check)).toEqual([
      "length",
      "lowercase",
      "uppercase",
      "digit",
    ]);
  });

  it("keeps every check under standard rules", () => {
    expect(password("Abcdefgh1", { passwordRules: "standard" })).toBe("password.symbol");
    expect(password("Abcdefgh1")).toBe("password.symbol");
  });

  it("lists every checklist row with its state", () => {
    expect(passwordChecklist("abc")).toEqual([
      { check: "length", ok: false },
      { check: "lowercase", ok: true },
      { check: "uppercase", ok: false },
      { check: "symbol", ok: false },
      { check: "digit", ok: false },
      { check: "allowedCharacters", ok: true },
    ]);
  });

  it.each([
    ["", BLANK],
    ["short", "password.incorrect"],
    ["Abcdefg1!", null],
  ])("change-password forms only say 'incorrect': %j → %s", (value, expected) => {
    expect(passwordForChange(value)).toBe(expected);
  });
});

describe("a chosen password's context words (NIST SP 800-63B-4 §3.1.1.2)", () => {
  const aurora = { id: "gungnir-aurora", displayName: "オーロラ証券", providerName: "カザハナ証券" };
  const context = { identities: ["Hanako.Yamada@example.jp"], brandWords: brandPasswordWords(aurora) };

  it("takes the brand's names and the Latin words of its service id after the product line's", () => {
    expect(brandPasswordWords(aurora)).toEqual(["オーロラ証券", "カザハナ証券", "aurora"]);
    expect(
      brandPasswordWords({ id: "liqueur-lemon-money-forword", displayName: "レモン", providerName: "カザハナ証券" }),
    ).toEqual(["レモン", "カザハナ証券", "lemon", "money", "forword"]);
    // One word is the product line itself (or no name at all: the site's own "client"); short words name nothing.
    expect(brandPasswordWords({ id: "client", displayName: "カザハナ証券", providerName: "カザハナ証券" })).toEqual([
      "カザハナ証券",
      "カザハナ証券",
    ]);
    expect(brandPasswordWords({ id: "nosh-fa", displayName: "A", providerName: "B" })).toEqual(["A", "B"]);
  });

  it.each([
    ["the address", "Hanako.Yamada@example.jp", "password.context"],
    ["the address in other case", "hanako.yamada@EXAMPLE.JP", "password.context"],
    ["the address in full-width forms (NFKC)", "Ｈａｎａｋｏ．Ｙａｍａｄａ＠ｅｘａｍｐｌｅ．ｊｐ", "password.context"],
    ["the address's local part", "HANAKO.yamada", "password.context"],
    ["the local part and more", "Hanako.Yamada1!", null],
    ["the brand's Latin name inside", "MyAurora2024!", "password.context"],
    ["the brand's Latin name in full-width forms", "ＡＵＲＯＲＡ-2024x", "password.context"],
    ["the brand's display name inside (relaxed rules allow it)", "オーロラ証券2024", "password.context"],
    ["the provider's name in half-width katakana (NFKC)", "ｶｻﾞﾊﾅ証券99", "password.context"],
    ["something else", "Br4nd-New-Pass", null],
  ])("%s: %j → %s", (_, value, expected) => {
    expect(passwordContext(value, context)).toBe(expected);
  });

  it("compares with a login ID that is not an address, and ignores blank or missing ones", () => {
    expect(passwordContext("kazahana-user-01", { identities: ["Kazahana-User-01 "] })).toBe("password.context");
    expect(passwordContext("Abcdefg1!", { identities: ["", "  ", undefined] })).toBeNull();
    expect(passwordContext("Abcdefg1!", {})).toBeNull();
  });

  it("lists the messages a field where a password is chosen adds to its rule's", () => {
    expect([...chosenPasswordMessageKeys].sort()).toEqual(["password.context", "password.leaked"]);
  });
});

describe("e-mail", () => {
  it.each([
    ["", BLANK],
    ["user@example.com", null],
    ["first.last+tag@sub.example.co.jp", null],
    ["user@example", "email.invalid"],
    ["user example@example.com", "email.invalid"],
    ["user@exa mple.com", "email.invalid"],
    ["@example.com", "email.invalid"],
    ["user@@example.com", "email.invalid"],
    ["user@.example.com", "email.invalid"],
    [" user@example.com", "email.invalid"],
    [`${"a".repeat(250)}@example.com`, "email.invalid"],
  ])("%j → %s", (value, expected) => {
    expect(email(value)).toBe(expected);
  });
});

describe("codes, phone and login ID", () => {
  it.each([
    ["", BLANK],
    ["123456", null],
    ["12345", "code.invalid"],
    ["1234567", "code.invalid"],
    ["12a456", "code.invalid"],
    ["１２３４５６", "code.invalid"],
  ])("code %j → %s", (value, expected) => {
    expect(code(value)).toBe(expected);
  });

  it.each([
    ["", BLANK],
    ["09012345678", null],
    ["08012345678", null],
    ["07012345678", null],
    ["05012345678", null],
    ["06012345678", "phone.invalid"],
    ["09112345678", "phone.invalid"],
    ["0901234567", "phone.invalid"],
    ["090-1234-5678", "phone.invalid"],
    ["+819012345678", "phone.invalid"],
  ])("phone %j → %s", (value, expected) => {
    expect(phone(value)).toBe(expected);
  });

  it("sends the phone as +81 followed by the number as typed", () => {
    expect(phoneForUpstream("09012345678")).toBe("+8109012345678");
  });

  it.each([
    ["", BLANK],
    ["   ", BLANK],
    ["user@example.com", null],
    ["AB12345", null],
    ["x".repeat(257), "loginId.required"],
  ])("login ID %j → %s", (value, expected) => {
    expect(loginId(value)).toBe(expected);
  });
});

describe("the messages a field island is given (so no message module ships to the browser)", () => {
  // Values that break each rule in each way it can break, and values that pass.
  const samples = [
    "",
    " ",
    "a",
    "abcdefgh",
    "ABCDEFGH",
    "Abcdefgh",
    "Abcdefg!",
    "Abcdef1!",
    "Abcdef1!あ",
    "Abcdef12",
    "x".repeat(300),
    "user@example.com",
    "user@example",
    "123456",
    "12345",
    "09012345678",
    "0901234567",
  ];

  it("lists every message each rule answers, for standard and relaxed password rules", () => {
    for (const [rule, keys] of Object.entries(ruleMessageKeys)) {
      const seen = new Set<RuleOutcome>();
      for (const value of samples)
        for (const passwordRules of ["standard", "relaxed"] as const)
          seen.add(runRule(rule as keyof typeof ruleMessageKeys, value, { passwordRules }));
      seen.delete(null);
      seen.delete(BLANK);
      // Every answer is listed, and every listed message is answered by some sample: the list is exact.
      expect([...seen].sort(), rule).toEqual([...keys].sort());
    }
  });
});
