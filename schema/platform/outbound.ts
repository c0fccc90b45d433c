import { z } from '@hono/zod-openapi';

/** Outbound work of the whole database (lib/outbound.ts): paused on a copy until the operator resumes it. */
export const OutboundStatusSchema = z
  .object({
    status: z.enum(['running', 'paused']),
    paused_at: z.string().nullable().describe('When the copy was made (restored, made from a backup, exported).'),
    reason: z.string().nullable().describe('How the copy was made, e.g. "restored from backup.tar.gz".'),
    held_runs: z.number().int().describe('Scheduler runs that found outbound work paused and held it.'),
    last_held_at: z.string().nullable(),
  })
  .openapi('OutboundStatus');

export const OutboundResumedSchema = z
  .object({
    status: z.literal('running'),
    resumed: OutboundStatusSchema.nullable().describe('The pause this call ended; null when nothing was paused.'),
  })
  .openapi('OutboundResumed');
