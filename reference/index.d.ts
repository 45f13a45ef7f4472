import type * as pulumi from "@pulumi/pulumi";

/**
 * A dynamic provider passed by reference: "<module>#<export>", the module a
 * path relative to the project directory (where Pulumi.yaml is) or a package,
 * the export the provider object or a class whose instances are providers.
 * Pass it to `pulumi.dynamic.Resource` in place of the provider object: the
 * SDK then serializes only the reference, and the pulumi-dynamic-host plugin
 * loads the provider from the project's current code.
 */
export declare function providerReference(reference: string): pulumi.dynamic.ResourceProvider;
