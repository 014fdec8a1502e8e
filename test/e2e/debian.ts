import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * The browser tests' engines come from Debian (playwright's downloads cannot work on these machines). Given each file
 * an engine needs and the package that brings it, installs the missing packages with apt-get when run as root on
 * Debian; otherwise fails naming the command. Never skips.
 */
export function ensureDebianPackages(engine: string, files: Record<string, string>): void {
  const missing = [...new Set(Object.entries(files).flatMap(([file, pkg]) => (existsSync(file) ? [] : [pkg])))];
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !existsSync("/etc/debian_version"))
    throw new Error(`${engine} is missing. Install it with: sudo apt-get install -y ${missing.join(" ")}`);
  console.log(`[e2e] installing Debian's ${missing.join(", ")} for ${engine} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env });
  const still = Object.keys(files).filter((file) => !existsSync(file));
  if (still.length) throw new Error(`apt-get finished but ${still.join(", ")} is still missing`);
}
