import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// `vite preview` is a Node server in front of workerd: the Cloudflare plugin hands each request to miniflare, which
// fetches it from workerd's own entry socket (an unnamed port). Under load that Node hop does work of its own for
// every request, the same for a page as for a static file, and takes CPU from workerd on a two-core machine, so it
// would flatten the ratios the bench compares. The bench loads workerd's entry socket directly instead, as the edge
// has no such hop. Linux only: the socket is found in /proc from the preview's own listening port.

interface Listener {
  port: number;
  inode: string;
}

/** Listening TCP sockets of this network namespace (IPv4 and IPv6). */
function listeners(): Listener[] {
  const found: Listener[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      if (fields[3] !== "0A") continue;
      const port = Number.parseInt(fields[1]?.split(":").at(-1) ?? "", 16);
      if (fields[9] && fields[9] !== "0") found.push({ port, inode: fields[9] });
    }
  }
  return found;
}

function socketInodes(pid: string): Set<string> {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // gone, or not ours to read
  }
  return inodes;
}

interface Process {
  pid: string;
  parent: string;
  command: string;
}

function processes(): Process[] {
  const found: Process[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const parent = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] ?? "";
      found.push({ pid, parent, command });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function answersHealth(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await response.json()) as { status?: string };
    return response.status === 200 && body.status === "ok";
  } catch {
    return false;
  }
}

/**
 * The URL of the workerd entry socket behind the preview at `previewUrl`, or undefined where it cannot be found
 * (not Linux, or no /proc): the process listening on the preview's port, its workerd descendants, and of their
 * listening ports the one that answers /health as the site does (the other is workerd's debug port).
 */
export async function workerdEntryBehind(previewUrl: string): Promise<string | undefined> {
  const previewPort = Number(new URL(previewUrl).port);
  let all: Process[];
  try {
    all = processes();
  } catch {
    return undefined;
  }
  const listening = listeners();
  const previewInodes = new Set(listening.filter(({ port }) => port === previewPort).map(({ inode }) => inode));
  const server = all.find(({ pid }) => [...socketInodes(pid)].some((inode) => previewInodes.has(inode)));
  if (!server) return undefined;
  const descendants = new Set([server.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const candidate of all)
      if (descendants.has(candidate.parent) && !descendants.has(candidate.pid)) {
        descendants.add(candidate.pid);
        grew = true;
      }
  }
  for (const workerd of all.filter(({ pid, command }) => descendants.has(pid) && command === "workerd")) {
    const own = socketInodes(workerd.pid);
    for (const { port, inode } of listening) {
      if (!own.has(inode)) continue;
      const url = `http://127.0.0.1:${port}`;
      if (await answersHealth(url)) return url;
    }
  }
  return undefined;
}
