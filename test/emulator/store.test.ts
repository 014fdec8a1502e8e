import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import type { EmulatorEnv } from "../../emulator/env";
import { migrate } from "../../emulator/state/store";
import { fileState, resetEmulator } from "./emulatorClient";

beforeEach(resetEmulator);

describe("the schema", () => {
  it("gives state kept by an older emulator the columns added since, keeping its rows", async () => {
    const stub = (env as unknown as EmulatorEnv).IDENTITY_STATE.getByName("global");
    const after = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("INSERT INTO tickets (kind, id, data, expires_at) VALUES ('signup_code', 'old', '{}', 0)");
      // the tickets table as it was before wrong codes were counted
      sql.exec("ALTER TABLE tickets DROP COLUMN failures");
      migrate(sql);
      migrate(sql);
      return sql.exec<{ failures: number }>("SELECT failures FROM tickets WHERE id = 'old'").toArray();
    });
    expect(after).toEqual([{ failures: 0 }]);
  });

  it("drops the sessions, codes and tokens of an older emulator, which do not say what their login achieved", async () => {
    const kept = await runInDurableObject(fileState("global"), (_instance, state) => {
      const sql = state.storage.sql;
      const login = JSON.stringify({ username: "u", login: { acr: "pwd", amr: ["pwd"], authTime: 0 } });
      for (const [kind, id, data] of [
        ["browser_session", "old-session", '{"username":"u"}'],
        ["refresh_token", "old-refresh", '{"username":"u","code":"c","browserSession":"s"}'],
        ["browser_session", "new-session", login],
        ["signup_code", "unrelated", '{"code":"123456"}'],
      ])
        sql.exec("INSERT INTO tickets (kind, id, data, expires_at) VALUES (?, ?, ?, 0)", kind, id, data);
      migrate(sql);
      return sql.exec<{ id: string }>("SELECT id FROM tickets ORDER BY id").toArray();
    });
    expect(kept.map((row) => row.id)).toEqual(["new-session", "unrelated"]);
  });
});

describe("the devices", () => {
  it("drops the devices an older emulator knew by product §9's device_id, which prove nothing", async () => {
    const tables = await runInDurableObject(fileState("global"), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec(
        "CREATE TABLE IF NOT EXISTS known_devices (username TEXT, device_id TEXT, failed_attempts INTEGER, locked_until INTEGER)",
      );
      sql.exec("INSERT INTO known_devices VALUES ('u', 'COPIEDDEVICEID00000000000000000', 0, 0)");
      migrate(sql);
      return sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%devices'")
        .toArray()
        .map((row) => row.name);
    });
    expect(tables).toEqual(["devices"]);
  });
});
