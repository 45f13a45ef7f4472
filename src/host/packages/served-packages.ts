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
import { decodeValue, encodeValue, folderOf, ParameterError, sourceOfArgs, type PackageSource, type RegistryKind, type RegistrySource } from "./parameters.js";
import { PackageError, pythonDependencies, readProviderPackage, type ProviderPackage } from "./provider-package.js";
import { installed, installedDependencies, RegistryError, type PackageRegistry, type Registry } from "./registry-install.js";
import path from "node:path";

export interface ServedPackage extends ProviderPackage {
  /** The value Parameterize answered with or was given: what GetSchema states as the package's parameter. */
  value: Buffer;
  source: PackageSource;
  /**
   * What must be in place before the package's provider first runs (a Python folder package's
   * missing dependencies): done on the first request of its types, not at Parameterize, since a
   * plugin asked only for the schema needs none of it. Throws a RegistryError saying what failed.
   */
  prepare?: () => Promise<void>;
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
    /** The registry this plugin installs packages from (npm for Node, PyPI for Python), or why it cannot (no usable Python). */
    private readonly registry: Registry = { unavailable: "this plugin process cannot install packages from a registry" },
  ) {}

  /** The registry this plugin's language uses. */
  private get registryKind(): RegistryKind {
    return this.plugin.language === "nodejs" ? "npm" : "pypi";
  }

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

  /** The arguments form: `pulumi package add <plugin> <folder or registry spec>`. */
  private async add(args: readonly string[]): Promise<ServedPackage> {
    const projectDir = this.projectDir();
    const given = sourceOfArgs(args, this.plugin.binary, this.registryKind, (p) => isDirectory(path.resolve(projectDir, p)));
    if (given.kind === "folder") {
      const source = { kind: "folder" as const, path: given.path };
      const dir = folderOf(source, projectDir);
      const pkg = this.withDependencies(await this.read(dir, `the folder ${JSON.stringify(source.path)} given to pulumi package add`));
      return { ...pkg, source, value: encodeValue({ source, name: pkg.name, version: pkg.version }) };
    }
    const taken = `no folder ${JSON.stringify(given.spec)} is in ${projectDir}, so it was taken for ${this.registryKind === "npm" ? "an npm" : "a PyPI"} spec`;
    const registry = this.usableRegistry(taken);
    let resolved;
    try {
      resolved = await registry.resolve(given.spec, projectDir);
    } catch (e) {
      if (e instanceof RegistryError) throw new RegistryError(`${e.message} (${taken})`);
      throw e;
    }
    const source: RegistrySource = { kind: registry.kind, spec: given.spec, ...resolved };
    const pkg = await this.fromRegistry(registry, source, projectDir);
    return { ...pkg, source, value: encodeValue({ source, name: pkg.name, version: pkg.version }) };
  }

  private usableRegistry(why: string): PackageRegistry {
    if ("unavailable" in this.registry) throw new ParameterError(`${why}, and ${this.registry.unavailable}`);
    return this.registry.use;
  }

  /** A registry package, installed into the cache if it is not there yet, and read. */
  private async fromRegistry(registry: PackageRegistry, source: RegistrySource, projectDir: string): Promise<ProviderPackage> {
    const where = await installed(registry, source, projectDir);
    const pkg = await this.read(where.dir, `${source.package} ${source.version} from ${registry.title} (${source.spec})`, where);
    if (pkg.version !== source.version) {
      throw new PackageError(`${source.package} ${source.version} from ${registry.title} says it is version ${pkg.version}; a provider package's version is the one it is published as`);
    }
    return pkg;
  }

  /** The value form: the package an SDK (or the state) names, restored from where it was added. */
  private async restore(given: NonNullable<ParameterizeFields["value"]>): Promise<ServedPackage> {
    const value = decodeValue(given.value ?? new Uint8Array());
    const named = `${value.name} ${value.version}`;
    if ((given.name && given.name !== value.name) || (given.version && given.version !== value.version)) {
      throw new ParameterError(`the engine asked for ${given.name} ${given.version}, and the parameter value it sent names ${named}`);
    }
    if (value.source.kind !== "folder") return this.restoreFromRegistry(value.source, value.name, named, given.value ?? new Uint8Array());
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
    return { ...this.withDependencies(pkg), source: value.source, value: Buffer.from(given.value ?? new Uint8Array()) };
  }

  /**
   * A Python folder package's dependencies that the plugin's Python lacks, installed into the cache
   * and imported after the package's folder: the provider runs with them however the consuming project
   * is set up. A Node folder package brings its own (its node_modules). Without a usable registry (no
   * usable Python), the package is served as it is, and a missing module is the import's error.
   */
  private withDependencies(pkg: ProviderPackage): ProviderPackage & Pick<ServedPackage, "prepare"> {
    if (pkg.language !== "python" || "unavailable" in this.registry) return pkg;
    const registry = this.registry.use;
    const requirements = pythonDependencies(pkg.dir) ?? [];
    if (requirements.length === 0) return pkg;
    let done: Promise<void> | undefined;
    const prepare = () =>
      (done ??= installedDependencies(registry, requirements, this.projectDir(), `${pkg.name} ${pkg.version} (${pkg.dir})`).then(
        (dir) => {
          if (dir !== undefined) for (const reference of pkg.references.all()) reference.dependencyDirs = [dir];
        },
        (e) => {
          done = undefined; // the next request tries again
          throw e;
        },
      ));
    return { ...pkg, prepare };
  }

  /** The value form of a registry package: from the cache, or installed again, the very bytes it was added with. */
  private async restoreFromRegistry(source: RegistrySource, name: string, named: string, value: Uint8Array): Promise<ServedPackage> {
    if (source.kind !== this.registryKind) {
      const other = source.kind === "npm" ? "pulumi-resource-pulumi-nodejs" : "pulumi-resource-pulumi-python";
      throw new ParameterError(`the project uses ${named}, a ${source.kind === "npm" ? "Node" : "Python"} package, and this plugin, ${this.plugin.binary}, does not serve those: ${other} does`);
    }
    const registry = this.usableRegistry(`the project uses ${named}, added from ${source.spec}`);
    const pkg = await this.fromRegistry(registry, source, this.projectDir());
    if (pkg.name !== name) {
      throw new ParameterError(`the project uses ${named}, added from ${source.spec}, and ${source.package} ${source.version} now declares the package ${pkg.name}`);
    }
    return { ...pkg, source, value: Buffer.from(value) };
  }

  private async read(dir: string, what: string, layout?: Parameters<typeof readProviderPackage>[1]): Promise<ProviderPackage> {
    if (!isDirectory(dir)) throw new PackageError(`${what} is not a folder: ${dir} does not exist or is not a directory`);
    const pkg = await readProviderPackage(dir, layout);
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
