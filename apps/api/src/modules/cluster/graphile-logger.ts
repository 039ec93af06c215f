import type { Logger as NestLogger } from '@nestjs/common';
import type { Logger } from 'graphile-worker';

/**
 * graphile-worker's log lines through ours: errors and warnings at their level, its per-job lines at
 * debug. Loaded on demand: the single-process default never loads graphile-worker.
 */
export async function graphileLogger(log: NestLogger): Promise<Logger> {
  const { Logger: GraphileLogger } = await import('graphile-worker');
  return new GraphileLogger((scope) => (level, message) => {
    const where = { worker: scope.workerId, task: scope.taskIdentifier, job: scope.jobId };
    if (String(level) === 'error') log.error(where, message);
    else if (String(level) === 'warning') log.warn(where, message);
    else log.debug(where, message);
  });
}
