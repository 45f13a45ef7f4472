// The shape of the project's declarations section (./provider-references.ts),
// in a module of its own so that zod is loaded only for a project that uses
// the section: the serving path imports provider-references.ts, and zod is the
// largest package a host that never needs it would otherwise load before its
// port line (Node mode needs it nowhere else).
import { z } from "zod";

const entrySchema = z.union([
  z.string(),
  z.object({ provider: z.string(), latestCode: z.boolean().optional() }).strict(),
]);

export const sectionSchema = z
  .object({
    latestCode: z.boolean().optional(),
    providers: z.record(z.string(), entrySchema).optional(),
  })
  .strict();

export type SectionSchema = typeof sectionSchema;
