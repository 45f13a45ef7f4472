// The shape of the project's declarations section (./provider-references.ts),
// in a module of its own so that zod is loaded only for a project that uses
// the section: the serving path imports provider-references.ts, and zod is the
// largest package a host that never needs it would otherwise load before its
// port line (Node mode needs it nowhere else).
import { z } from "zod";

const entrySchema = z.union([
  z.string(),
  z
    .object({
      provider: z.string(),
      latestCode: z.boolean().optional(),
      // The type's schema (docs/schema.md): read by ./declared-types.ts, which says where a property's type is wrong.
      description: z.string().optional(),
      inputs: z.unknown().optional(),
      outputs: z.unknown().optional(),
    })
    .strict(),
]);

export const sectionSchema = z
  .object({
    latestCode: z.boolean().optional(),
    // The Python that runs the declared Python providers of a project whose runtime is not python
    // (src/python-bridge/interpreter/project-interpreter.ts): a path, relative to Pulumi.yaml's directory, to an
    // interpreter or a virtualenv, or a command looked up on PATH. Both modes accept it.
    python: z.string().min(1).optional(),
    providers: z.record(z.string(), entrySchema).optional(),
  })
  .strict();

export type SectionSchema = typeof sectionSchema;
