import { z } from 'zod';
import { DEFAULT_STORE_NAMESPACE, EXAMPLE_VALUES, STILL_EXAMPLE, setVariables } from '../config/config.js';
import { projectIdField, redisUrlField } from '../config/env-fields.js';
import { isOAuthMode } from '../config/oauth-config.js';
import { STEP_LANES } from '../lanes.js';
import { createLogger } from '../log.js';
import { describeRedisUrl } from '../store/redis-settings.js';
import type { QueueInspector } from './engine.js';
import { queueNamespace } from './redis-connection.js';
import { openRedisInspector } from './redis-inspector.js';

/** `npm run queues` (`node dist/queues.js` in the image): what BullMQ holds for this app, and two repairs. */
export const QUEUES_USAGE = `Usage:
  npm run queues                        every lane's counts, schedulers and newest failed jobs
  npm run queues -- retry <lane> <id>   run a failed job again, with all its tries
  npm run queues -- remove <lane> <id>  delete a failed job (its id can be added again)
Reads REDIS_URL, STORE_NAMESPACE and MINTLIFY_PROJECT_ID (SLACK_CLIENT_ID in OAuth mode) from the environment
(or .env), as the app does.`;

const FAILED_SHOWN = 20;

const envSchema = z.object({
  REDIS_URL: redisUrlField,
  STORE_NAMESPACE: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'expected 1–64 letters, digits, dots, dashes or underscores')
    .default(DEFAULT_STORE_NAMESPACE),
  MINTLIFY_PROJECT_ID: projectIdField,
  SLACK_CLIENT_ID: z.string().trim().optional(),
});

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** Runs the command; resolves with the exit code. Prints no credentials: Redis is named by host, port and db only. */
export async function runQueuesCommand(args: string[], env: NodeJS.ProcessEnv, io: Output): Promise<number> {
  const [action, lane, id] = args;
  if (!(action === undefined || ((action === 'retry' || action === 'remove') && lane && id && args.length === 3))) {
    io.err(QUEUES_USAGE);
    return 2;
  }
  const set = setVariables(env); // a blank variable is unset, as the app reads it
  const parsed = envSchema.safeParse(set);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    io.err(`${issue?.path.join('.')}: ${issue?.message}`);
    return 2;
  }
  const { REDIS_URL: redisUrl, STORE_NAMESPACE: store } = parsed.data;
  if (!redisUrl) {
    io.err(
      'REDIS_URL is not set, so the app runs its queues in process: they live inside the app and cannot be seen ' +
        'from outside. Set REDIS_URL (as the app has it) to inspect the queues on Redis.',
    );
    return 1;
  }
  // The app's own queues: its project, or its Slack app when it serves many workspaces (app.ts).
  const deployment = isOAuthMode(set) ? parsed.data.SLACK_CLIENT_ID : parsed.data.MINTLIFY_PROJECT_ID;
  if (!deployment) {
    io.err(
      'MINTLIFY_PROJECT_ID (or, in OAuth mode, SLACK_CLIENT_ID): required, as the app has it (its queues on Redis ' +
        'live under it)',
    );
    return 2;
  }
  if (deployment === EXAMPLE_VALUES.MINTLIFY_PROJECT_ID) {
    io.err(`MINTLIFY_PROJECT_ID: ${STILL_EXAMPLE}`);
    return 2;
  }
  const namespace = queueNamespace(store, deployment);
  let inspector: Awaited<ReturnType<typeof openRedisInspector>>;
  try {
    inspector = await openRedisInspector(redisUrl, namespace, createLogger('warn', io.err), STEP_LANES);
  } catch (error) {
    io.err((error as Error).message);
    return 1;
  }
  try {
    if (action === undefined) {
      io.out(`Queues on ${describeRedisUrl(redisUrl)}, namespace ${namespace}\n`);
      io.out(await report(inspector));
      return 0;
    }
    const lanes = await inspector.lanes();
    if (!lanes.includes(lane ?? '')) {
      io.err(`No lane ${lane} under this namespace. Its lanes: ${lanes.join(', ') || 'none yet'}.`);
      return 1;
    }
    const done =
      action === 'retry' ? await inspector.retry(lane ?? '', id ?? '') : await inspector.remove(lane ?? '', id ?? '');
    if (!done) io.err(`No failed job ${id} in lane ${lane}.`);
    else io.out(action === 'retry' ? `Retrying ${id} in lane ${lane}.` : `Removed ${id} from lane ${lane}.`);
    return done ? 0 : 1;
  } catch (error) {
    io.err((error as Error).message);
    return 1;
  } finally {
    await inspector.close();
  }
}

/** Counts per lane, then schedulers, then the newest failed jobs. */
async function report(inspector: QueueInspector): Promise<string> {
  const lanes = await inspector.lanes();
  if (lanes.length === 0) return 'No queues yet under this namespace.';
  const rows = [['lane', 'waiting', 'delayed', 'active', 'failed']];
  const schedules: string[] = [];
  const failed: string[] = [];
  for (const lane of lanes) {
    const counts = await inspector.counts(lane);
    rows.push([lane, ...[counts.waiting, counts.delayed, counts.active, counts.failed].map(String)]);
    for (const { id, schedule, nextAt } of await inspector.schedules(lane)) {
      const when = 'everyMs' in schedule ? `every ${schedule.everyMs} ms` : `cron ${schedule.cron} (${schedule.tz})`;
      schedules.push(`  ${lane}  ${id}  ${when}  next ${nextAt ? new Date(nextAt).toISOString() : '-'}`);
    }
    for (const job of await inspector.failed(lane, FAILED_SHOWN)) {
      const at = new Date(job.failedAt).toISOString();
      failed.push(`  ${lane}  ${job.id}  ${job.attempts} attempts  ${at}  ${job.error}\n      data ${job.data}`);
    }
  }
  return [
    table(rows),
    `\nSchedulers\n${schedules.join('\n') || '  none'}`,
    `\nFailed jobs, newest first (up to ${FAILED_SHOWN} per lane)\n${failed.join('\n') || '  none'}`,
  ].join('\n');
}

/** Left-aligned first column, right-aligned numbers. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}
