/**
 * claws' per-worker bookkeeping (`lifecycle.register-spawn|register-monitor|mark-worker-status|
 * snapshot`, `monitors.register-intent|is-corr-armed`), with claws' names, fields and answers, and
 * the claws commands Switchboard refuses (src/node/control/commands/clawsUnsupported.ts says why).
 */
import { z } from 'zod';
import { NoResult } from './fields.ts';
import { IdValue } from './wire.ts';

/** claws' WorkerStatus. */
export const WorkerStatus = z.enum(['spawned', 'completed', 'failed', 'timeout', 'closed', 'terminated']);
export type WorkerStatus = z.infer<typeof WorkerStatus>;

/**
 * claws' SpawnedWorker (its lifecycle-store), field for field: claws clients read these names.
 * Nested shapes are plain objects (unknown fields dropped, not refused) so the server's own
 * interfaces satisfy them.
 */
export const SpawnedWorker = z.object({
  id: z.string(),
  correlation_id: z.string(),
  name: z.string(),
  spawned_at: z.string(),
  status: WorkerStatus,
  completed_at: z.string().optional(),
});

/** claws' MonitorRecord. */
export const MonitorRecord = z.object({
  terminal_id: z.string(),
  correlation_id: z.string(),
  command: z.string(),
  armed_at: z.string(),
});

const TerminalIdParam = IdValue.transform(String);
const CorrelationId = z.string().min(1).max(200);

export const clawsWorkerCommandSchemas = {
  'lifecycle.register-spawn': {
    params: z.object({ terminalId: TerminalIdParam, correlationId: CorrelationId, name: z.string().min(1).max(200) }),
    result: z.looseObject({ worker: SpawnedWorker }),
  },
  'lifecycle.register-monitor': {
    params: z.object({ terminalId: TerminalIdParam, correlationId: CorrelationId, command: z.string().min(1).max(16 * 1024) }),
    result: z.looseObject({ monitor: MonitorRecord }),
  },
  'lifecycle.mark-worker-status': {
    params: z.object({ terminalId: TerminalIdParam, status: WorkerStatus }),
    // claws answers worker: null for a terminal it never registered.
    result: z.looseObject({ worker: SpawnedWorker.nullable() }),
  },
  'lifecycle.snapshot': {
    params: z.object({}),
    result: z.looseObject({
      state: z.object({
        v: z.number(),
        /** No phase machine here: always null. */
        phase: z.null(),
        spawned_workers: z.array(SpawnedWorker),
        monitors: z.array(MonitorRecord),
        /** claws' older mirror, for clients that ask "is this terminal closed?". */
        workers: z.array(z.object({ id: z.string(), closed: z.boolean() })),
      }),
    }),
  },
  'monitors.register-intent': {
    params: z.object({ correlation_id: CorrelationId }),
    result: z.looseObject({}),
  },
  'monitors.is-corr-armed': {
    params: z.object({ correlation_id: CorrelationId }),
    result: z.looseObject({ armed: z.boolean(), claimed: z.boolean(), pending: z.boolean(), peerId: z.string().nullable() }),
  },
} as const;

/** claws commands Switchboard knows and refuses with a message naming the command, never `unknown cmd`. */
export const clawsUnsupportedCommandNames = [
  'lifecycle.plan',
  'lifecycle.advance',
  'lifecycle.reflect',
  'wave.create',
  'wave.status',
  'wave.complete',
  'pipeline.create',
  'pipeline.list',
  'pipeline.close',
  'deliver-cmd',
  'cmd.ack',
  'rpc.call',
  'schema.list',
  'schema.get',
  'read',
] as const;
export type ClawsUnsupportedCommand = (typeof clawsUnsupportedCommandNames)[number];

/** Whatever the fields: the answer (a refusal) does not depend on them. */
const refused = { params: z.unknown(), result: NoResult };

export const clawsUnsupportedCommandSchemas = Object.fromEntries(clawsUnsupportedCommandNames.map((name) => [name, refused])) as {
  readonly [K in ClawsUnsupportedCommand]: typeof refused;
};
