// What the Python plugin's launcher (python-stub/launch.sh) leaves in the
// host's environment, taken back before anything else runs: every entry of the
// host (../main.ts, plugin-nodejs.ts, plugin-python.ts) calls this first.

/** What `poetry env info --path` answered the launcher (launch.sh asks once, as the reference's launcher does). */
export const POETRY_ENV_VARIABLE = "PULUMI_DYNAMIC_HOST_POETRY_ENV";

/** The launcher's answer from poetry, taken from the environment; undefined when it did not ask. */
export let launcherPoetryEnv: string | undefined;

/**
 * Removes PULUMI_DYNAMIC_HOST_SERVE (the launcher's own path, which picks the
 * mode), so that neither providers nor workers see it, and returns it; puts
 * NODE_EXTRA_CA_CERTS back, which the launcher moved aside so that Node started
 * without reading the certificates: everything the host starts gets it. Takes
 * the launcher's answer from poetry (launcherPoetryEnv), so the host does not ask again.
 */
export function takeLauncherEnvironment(): string | undefined {
  const served = process.env.PULUMI_DYNAMIC_HOST_SERVE;
  delete process.env.PULUMI_DYNAMIC_HOST_SERVE;
  launcherPoetryEnv = process.env[POETRY_ENV_VARIABLE];
  delete process.env[POETRY_ENV_VARIABLE];
  const caCerts = process.env.PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS;
  delete process.env.PULUMI_DYNAMIC_HOST_NODE_EXTRA_CA_CERTS;
  if (caCerts !== undefined) process.env.NODE_EXTRA_CA_CERTS = caCerts;
  return served;
}
