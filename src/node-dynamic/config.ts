// The object a Node provider's `configure({config})` receives. Same shape and
// texts as the Node reference's dynamic-provider Config: keys without a
// namespace are read under the project's, and `require` names the key as the
// user passed it.
export class Config {
  constructor(
    readonly rawConfig: Record<string, unknown> | undefined,
    readonly projectName: string,
  ) {}

  get(key: string): unknown {
    if (!key.includes(":")) key = `${this.projectName}:${key}`;
    // Before any Configure RPC rawConfig is undefined and this throws a TypeError, as upstream does.
    return (this.rawConfig as Record<string, unknown>)[key];
  }

  require(key: string): unknown {
    const value = this.get(key);
    if (value === undefined) throw new Error(`Missing required configuration key: ${key}`);
    return value;
  }
}

/** The project name the Node SDK reports inside the plugin process. */
export function nodeProjectName(env: NodeJS.ProcessEnv = process.env): string {
  return env.PULUMI_NODEJS_PROJECT || "project";
}
