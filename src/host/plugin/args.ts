// Command line as the engine builds it:
//   [--logtostderr] [-v=<N>] [--tracing <endpoint>] <engine-address>
// The references ignore all of it; we read only whether logs were asked for.

export interface PluginArgs {
  engineAddress?: string;
  /** -1 when no logs were asked for; otherwise the verbosity. */
  verbosity: number;
  positional: string[];
}

export function parsePluginArgs(argv: readonly string[]): PluginArgs {
  const positional: string[] = [];
  let logToStderr = false;
  let level: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--logtostderr" || a === "-logtostderr") logToStderr = true;
    else if (/^--?v=\d+$/.test(a)) level = Number(a.slice(a.indexOf("=") + 1));
    else if (a === "-v" || a === "--v") {
      if (/^\d+$/.test(argv[i + 1] ?? "")) level = Number(argv[++i]);
      else level = 1;
    } else if (a === "--tracing" || a === "-tracing") i++;
    else if (/^--?tracing=/.test(a)) continue;
    else if (a.startsWith("-") && a.length > 1) continue;
    else positional.push(a);
  }
  const verbosity = level !== undefined ? level : logToStderr ? 0 : -1;
  return { engineAddress: positional[positional.length - 1], verbosity, positional };
}
