// The provider packages one plugin process serves. The engine starts a process
// per provider and sends Parameterize first, once; the schema loader does the
// same for GetSchema. One process may still be asked for several packages
// (nothing in the protocol forbids it): each is kept by its name, and a
// request finds its package by its type token's first part. A second version
// of a package already served is refused, since type tokens do not carry a
// version and one process could not tell the two apart.
import { isDirectory } from "../files/file-probe.js";
import { findProjectRoot } from "../references/project-root.js";
import type { Language } from "../plugin/modes.js";
import { decodeValue, encodeValue, folderOf, ParameterError, sourceOfArgs, type PackageSource } from "./parameters.js";
import { PackageError, readProviderPackage, type ProviderPackage } from "./provider-package.js";

export interface ServedPackage extends ProviderPackage {
  /** The value Parameterize answered with or was given: what GetSchema states as the package's parameter. */
  value: Buffer;
  source: PackageSource;
}

/** What Parameterize carries (our .proto's ParameterizeRequest, decoded). */
export interface ParameterizeFields {
  args?: { args?: string[] };
  value?: { name?: string; version?: string; value?: Uint8Array };
}

/** The plugin as these messages name it. */
export interface PluginIdentity {
  language: Language;
  /** pulumi-resource-pulumi-nodejs */
  binary: string;
}

export class ServedPackages {
  private readonly served = new Map<string, ServedPackage>();

  constructor(
    private readonly plugin: PluginIdentity,
    /** The plugin's working directory: relative folders are relative to the project found from here. */
    private readonly cwd: string,
  ) {}

  /** The package serving `name`, once Parameterize named it. */
  get(name: string): ServedPackage | undefined {
    return this.served.get(name);
  }

  /** Parameterize: reads the package the parameters name and serves it; answers its name and version. Throws a ParameterError or PackageError. */
  async parameterize(req: ParameterizeFields): Promise<{ name: string; version: string }> {
    const pkg = req.value ? await this.restore(req.value) : await this.add(req.args?.args ?? []);
    const already = this.served.get(pkg.name);
    if (already && already.version !== pkg.version) {
      throw new ParameterError(
        `this plugin process already serves ${pkg.name} ${already.version} (from ${already.dir}), and was asked for ${pkg.name} ` +
          `${pkg.version} (from ${pkg.dir}); one process serves one version of a package, since type tokens carry no version`,
      );
    }
    this.served.set(pkg.name, pkg);
    return { name: pkg.name, version: pkg.version };
  }

  private projectDir(): string {
    return findProjectRoot(this.cwd) ?? this.cwd;
  }

  /** The arguments form: `pulumi package add <plugin> <folder>`. */
  private async add(args: readonly string[]): Promise<ServedPackage> {
    const source = sourceOfArgs(args, this.plugin.binary);
    const dir = folderOf(source, this.projectDir());
    const pkg = await this.read(dir, `the folder ${JSON.stringify(source.path)} given to pulumi package add`);
    return { ...pkg, source, value: encodeValue({ source, name: pkg.name, version: pkg.version }) };
  }

  /** The value form: the package an SDK (or the state) names, restored from where it was added. */
  private async restore(given: NonNullable<ParameterizeFields["value"]>): Promise<ServedPackage> {
    const value = decodeValue(given.value ?? new Uint8Array());
    const named = `${value.name} ${value.version}`;
    if ((given.name && given.name !== value.name) || (given.version && given.version !== value.version)) {
      throw new ParameterError(`the engine asked for ${given.name} ${given.version}, and the parameter value it sent names ${named}`);
    }
    const dir = folderOf(value.source, this.projectDir());
    const readd = `pulumi package add "$(dirname "$(command -v pulumi)")/${this.plugin.binary}" <folder of ${value.name}>`;
    let pkg: ProviderPackage;
    try {
      pkg = await this.read(dir, `the folder ${JSON.stringify(value.source.path)} the project added ${named} from`);
    } catch (e) {
      if (!(e instanceof PackageError || e instanceof ParameterError)) throw e;
      throw new ParameterError(`${e.message}; put the package back there, or add it again from where it is now: ${readd}`);
    }
    if (pkg.name !== value.name || pkg.version !== value.version) {
      throw new ParameterError(
        `the project uses ${named}, added from ${dir}, and that folder now holds ${pkg.name} ${pkg.version}; ` +
          `to use it, add it again (${readd}), which regenerates the SDK; or put ${named} back there`,
      );
    }
    return { ...pkg, source: value.source, value: Buffer.from(given.value ?? new Uint8Array()) };
  }

  private async read(dir: string, what: string): Promise<ProviderPackage> {
    if (!isDirectory(dir)) throw new PackageError(`${what} is not a folder: ${dir} does not exist or is not a directory`);
    const pkg = await readProviderPackage(dir);
    if (pkg.language !== this.plugin.language) {
      const other = pkg.language === "nodejs" ? "pulumi-resource-pulumi-nodejs" : "pulumi-resource-pulumi-python";
      throw new PackageError(
        `${dir} is a ${pkg.language === "nodejs" ? "Node" : "Python"} provider package (${pkg.name}), and this plugin, ` +
          `${this.plugin.binary}, serves ${this.plugin.language === "nodejs" ? "Node" : "Python"} ones: add it with ${other}`,
      );
    }
    return pkg;
  }
}
