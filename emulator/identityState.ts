import { DurableObject } from "cloudflare:workers";
import type { Hono } from "hono";
import { createApp } from "./app";
import { loadSigningKey, type SigningKey } from "./crypto/signingKey";
import type { EmulatorEnv } from "./env";
import type { EmulatorHono } from "./routes/context";
import { Devices } from "./state/devices";
import { Faults } from "./state/faults";
import { Outbox } from "./state/outbox";
import { Passkeys } from "./state/passkeys";
import { PasswordLockout } from "./state/passwordLockout";
import { SendLog } from "./state/sendLog";
import { SignIns } from "./state/signIns";
import { migrate } from "./state/store";
import { Tickets } from "./state/tickets";
import { Users } from "./state/users";

/** All emulator state, in one SQLite-backed object named "global": calls are serialised, no races. */
export class IdentityState extends DurableObject<EmulatorEnv> {
  private readonly app: Hono<EmulatorHono>;

  constructor(ctx: DurableObjectState, env: EmulatorEnv) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    migrate(sql);
    let signingKey: Promise<SigningKey> | undefined;
    this.app = createApp({
      sql,
      users: new Users(sql),
      lockout: new PasswordLockout(sql),
      tickets: new Tickets(sql),
      outbox: new Outbox(sql),
      sendLog: new SendLog(sql),
      faults: new Faults(sql),
      passkeys: new Passkeys(sql),
      devices: new Devices(sql),
      signIns: new SignIns(sql),
      signingKey: () => (signingKey ??= loadSigningKey(sql)),
    });
  }

  override fetch(request: Request): Response | Promise<Response> {
    return this.app.fetch(request, this.env);
  }
}
