import { z } from 'zod';

export const plotSchema = z.object({
  id: z.string(),
  label: z.string(),
  areaSqm: z.number().int().positive(),
  season: z.number().int(),
});

export type Plot = z.infer<typeof plotSchema>;
