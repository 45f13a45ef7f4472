// YAML text read into plain values (Pulumi.yaml, pulumi-provider.yaml), with
// the `yaml` package loaded on first need, so that a plugin start that reads
// no YAML does not load it.
/** The document `text` holds; throws the parser's error (its message says where) when it is not valid YAML. */
export async function parseYaml(text: string): Promise<unknown> {
  const yaml = await import("yaml");
  // Bundled, the package arrives as a CommonJS namespace: its functions then sit on `default`.
  const parse = yaml.parse ?? (yaml as unknown as { default: typeof yaml }).default.parse;
  return parse(text);
}
