// src/host/diagnostics: the host's own diagnostics, the lines it writes to
// stderr when the engine asked for logs (-v=N, --logtostderr). It owns the
// verbosity and log(); it imports nothing of the host, so every folder may
// import it.
//
// The host's own diagnostics. The engine shows every stderr line of a dynamic
// plugin to the user, so nothing is written unless the engine asked for logs
// (--logtostderr, -v=N); the level is set once at start-up.
let verbosity = -1;

export function setVerbosity(level: number): void {
  verbosity = level;
}

/** Writes `message` to stderr when logging was asked for at `level` or above. */
export function log(level: number, message: string): void {
  if (verbosity >= level) process.stderr.write(`pulumi-dynamic-host: ${message}\n`);
}
