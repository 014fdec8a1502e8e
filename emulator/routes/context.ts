import type { SigningKey } from "../crypto/signingKey";
import type { EmulatorEnv } from "../env";
import type { Devices } from "../state/devices";
import type { Faults } from "../state/faults";
import type { Outbox } from "../state/outbox";
import type { Passkeys } from "../state/passkeys";
import type { PasswordLockout } from "../state/passwordLockout";
import type { SendLog } from "../state/sendLog";
import type { SignIns } from "../state/signIns";
import type { Tickets } from "../state/tickets";
import type { Users } from "../state/users";

/** The state object's stores, built once per Durable Object instance. */
export interface Services {
  sql: SqlStorage;
  users: Users;
  lockout: PasswordLockout;
  tickets: Tickets;
  outbox: Outbox;
  sendLog: SendLog;
  faults: Faults;
  passkeys: Passkeys;
  devices: Devices;
  signIns: SignIns;
  signingKey: () => Promise<SigningKey>;
}

export interface EmulatorHono {
  Bindings: EmulatorEnv;
  Variables: {
    services: Services;
    /** The site's public origin for this request (X-Forwarded-* or SITE_ORIGIN). */
    site: string;
    /** Emulator clock for this request, ms since the epoch. */
    now: number;
  };
}
