// The range API's built-in list (routes/pwnedRange.ts): some of the most common passwords that still meet product §5's
// standard rules, as the leaked-password lists have them. None is a password the tests choose on purpose
// (test/support/vocabulary.ts): those must pass. Tests add a password of their own with
// `POST /__emulator/breached-passwords`.

/** How often the list says each was seen: any count above zero lists a password. */
export const COMMON_PASSWORD_COUNT = 10_000;

export const commonPasswords: readonly string[] = [
  "Password1!",
  "Password1@",
  "Password123!",
  "Password@123",
  "P@ssw0rd",
  "P@ssw0rd1",
  "P@ssword1",
  "P@$$w0rd",
  "Passw0rd1!",
  "Pass@123",
  "Pass@1234",
  "Qwerty123!",
  "Qwerty1!",
  "Qwer1234!",
  "Abcd1234!",
  "Abc@1234",
  "Aa123456!",
  "Aa@123456",
  "Admin@123",
  "Admin123!",
  "Test@123",
  "Welcome1!",
  "Welcome@123",
  "Changeme1!",
  "Letmein1!",
  "Iloveyou1!",
  "Trustno1!",
  "Monkey123!",
  "Dragon123!",
  "Sunshine1!",
  "Football1!",
  "Summer2024!",
  "Tokyo2020!",
  "Sakura123!",
  "1qaz@WSX",
  "1qaz!QAZ",
  "!QAZ2wsx",
  "Zaq12wsx!",
];
