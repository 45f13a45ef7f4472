// What `doctor` says of the system it runs on (docs/platform-code.md): the
// platform and architecture, the Node running this command (its version, and
// whether it is the one embedded in the single executable), and each feature
// this platform turns off, with why. A function of what it is given, so that
// test/unit/platform-report.test.ts gives it Windows and macOS.
import { EMBEDDED } from "../../host/files/assets.js";
import { isDirectory } from "../../host/files/file-probe.js";
import { launcherOff } from "./preloaders.js";

export interface RunningOn {
  platform: NodeJS.Platform;
  arch: string;
  /** process.version of the Node running this command. */
  nodeVersion: string;
  /** Whether that Node is the single executable's own. */
  embedded: boolean;
  /** Whether /proc/self is there. */
  hasProc: boolean;
}

export function runningOn(): RunningOn {
  return { platform: process.platform, arch: process.arch, nodeVersion: process.version, embedded: EMBEDDED, hasProc: isDirectory("/proc/self") };
}

const OS_NAMES: Partial<Record<NodeJS.Platform, string>> = { linux: "Linux", darwin: "macOS", win32: "Windows" };

/** The findings: one `ok` line naming the platform and the Node, and a `note` per feature turned off here. */
export function platformFindings(r: RunningOn): { kind: "ok" | "note"; line: string }[] {
  const os = OS_NAMES[r.platform] ?? r.platform;
  const node = r.embedded ? `Node ${r.nodeVersion} embedded in this single executable` : `Node ${r.nodeVersion} (${r.platform === "win32" ? "node.exe" : "node"}, not the single executable)`;
  const findings: { kind: "ok" | "note"; line: string }[] = [{ kind: "ok", line: `platform: ${os} ${r.arch} (${r.platform}-${r.arch}); this command runs on ${node}` }];
  const off = launcherOff(r.platform, r.hasProc);
  if (off !== undefined) {
    findings.push({
      kind: "note",
      line:
        `python launcher: off on ${os}: ${off}. The host starts its Python worker itself (as with PULUMI_DYNAMIC_HOST_PRESTART=0), ` +
        `so no worker starts beside it and no preloader forks one: each Python plugin start pays an interpreter's start (docs/platform-code.md)`,
    });
  }
  return findings;
}
