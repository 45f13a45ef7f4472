/**
 * `pulumi-dynamic-host/declared`: use a dynamic provider that the project
 * declares in its `Pulumi.yaml`, from a TypeScript or JavaScript program,
 * whatever language the provider is written in.
 *
 * ```yaml
 * # Pulumi.yaml
 * pulumi-dynamic-host:
 *   providers:
 *     pulumi-nodejs:dynamic/files:TextFile: ./text-file#textFileProvider
 *     pulumi-python:dynamic:Counter: counters:CounterProvider
 * ```
 *
 * ```ts
 * import { DeclaredResource } from "pulumi-dynamic-host/declared";
 *
 * interface TextFileOutputs { path: string; content: string; size: number }
 *
 * const motd = new DeclaredResource<TextFileOutputs>(
 *   "pulumi-nodejs:dynamic/files:TextFile",
 *   "motd",
 *   { path: "/tmp/motd", content: "hello" },
 *   { outputs: ["size"] },
 * );
 * export const size = motd.output("size"); // pulumi.Output<number>
 * ```
 *
 * - The resource is registered with its inputs and nothing else: no provider
 *   object, no serialized code, no `__provider`. The pulumi-dynamic-host
 *   plugin (installed as the engine's `pulumi-resource-pulumi-nodejs` and
 *   `pulumi-resource-pulumi-python`) serves every operation of the type from
 *   its declaration. Pulumi's own plugins cannot: they need `__provider`.
 * - The SDK resolves only the properties a resource registers. The inputs are
 *   registered; name every other output you read in `opts.outputs` (they are
 *   registered as undefined, so they are not sent as inputs). `outputs` is this
 *   helper's option and is not passed on to Pulumi.
 * - Property names `urn`, `id`, names beginning with `__`, and the names of the
 *   resource object's own members (`output`, `getProvider`, ...) are refused
 *   with an error: the SDK makes each registered name a property of the
 *   resource object, and these would clash.
 * - `@pulumi/pulumi` is the program's own copy, resolved from the project's
 *   `node_modules` (an optional peer dependency of this package). Works under
 *   Node and Bun.
 */
import * as pulumi from "@pulumi/pulumi";

/** The options of a declared resource: Pulumi's own, and the output names to register. */
export type DeclaredResourceOptions<Outputs = Record<string, any>> = pulumi.CustomResourceOptions & {
  /** Outputs the provider returns that are not inputs, to be read with `output()`. */
  outputs?: readonly (keyof Outputs & string)[];
};

/**
 * A resource of a type declared in the project's Pulumi.yaml, registered with
 * its inputs alone. `Outputs` describes the provider's outputs (inputs it
 * returns included) for `output()`.
 */
export declare class DeclaredResource<Outputs = Record<string, any>> extends pulumi.CustomResource {
  /**
   * @param type the declared type token, e.g. `pulumi-nodejs:dynamic/files:TextFile`
   * @param name the resource's name
   * @param inputs its input properties
   * @param opts Pulumi's resource options, and `outputs`: the output names to register
   * @throws Error when an input or output name clashes with the resource object (see the module header)
   */
  constructor(type: string, name: string, inputs: pulumi.Inputs, opts?: DeclaredResourceOptions<Outputs>);

  /**
   * The Output of a registered property: an input, or a name listed in
   * `opts.outputs`. It holds the provider's value once the resource is created
   * or read (the engine's value wins over the input's).
   * @throws Error for a name that was not registered, saying to list it in `opts.outputs`
   */
  output<K extends keyof Outputs & string>(name: K): pulumi.Output<Outputs[K]>;
}
