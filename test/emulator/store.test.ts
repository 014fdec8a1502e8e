import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import type { EmulatorEnv } from "../../emulator/env";
import { migrate } from "../../emulator/state/store";
import { resetEmulator } from "./emulatorClient";

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
});
