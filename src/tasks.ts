import type { z } from 'zod';
import { handleTurn, type Turn, TurnSchema } from './agent/conversation.js';
import { errors } from './agent/messages.js';
import { PaneTurnSchema, runPaneTurn } from './agent/pane.js';
import { runStop, StopRequestSchema } from './agent/session/stop.js';
import { ShortcutSubmissionSchema } from './agent/shortcut-modal.js';
import { CommandStartSchema, runCommandStart, runShortcutStart } from './agent/tasks.js';
import type { Deps } from './deps.js';
import { TabOpenedSchema, tabOpened } from './home/publish.js';
import {
  InsightsRequestSchema,
  insightsUnavailable,
  runInsights,
  runInsightsExport,
  runInsightsPage,
} from './insights/index.js';
import { type TaskEnvelope, TaskEnvelopeSchema, type TaskLane } from './lanes.js';
import { QueueUnavailableError, type UnstartedJob } from './queue/engine.js';
import type { Message } from './slack/message.js';
import type { ReportQuery } from './visitors/date-range.js';
import { runScheduledDigest, ScheduledDigestSchema } from './visitors/digest/send.js';
import { errorCopy, notice } from './visitors/messages.js';
import { DigestRequestSchema, ReportRequestSchema } from './visitors/requests.js';
import { runChart, runDigest, runExport, runReport, runShare, runShareChart, runTurnPage } from './visitors/tasks.js';

interface Task<S extends z.ZodType> {
  lane: TaskLane;
  schema: S;
  run(deps: Deps, data: z.infer<S>): Promise<void>;
  /**
   * What the person hears when the work cannot be done: it could not be handed on (the queue's store does not
   * answer), or it was still waiting, never started, when the process stopped (the in-process queue).
   */
  unavailable?(deps: Deps, data: z.infer<S>, why: Unavailable): Promise<void>;
}

/**
 * Why work is not done: the queue's store does not answer, the in-process queue stopped with it waiting, no worker
 * takes its lane (the web role is told so at once; the work stays queued), or a worker took it too late (expired).
 */
export type Unavailable = 'store' | 'restarting' | 'no_worker' | 'expired';

/**
 * Work a person waits for (a task with an `unavailable` answer) that a worker takes later than this after it was
 * queued is answered as expired, not run: a web role left without workers for hours must not start stale commands.
 */
export const TASK_MAX_AGE_MS = 10 * 60_000;
const MAX_AGE_MINUTES = TASK_MAX_AGE_MS / 60_000;

const task = <S extends z.ZodType>(definition: Task<S>) => definition;

const reportAnswers: Record<Unavailable, (query: ReportQuery) => string> = {
  store: errorCopy.unavailable,
  restarting: errorCopy.restarting,
  no_worker: (query) => errorCopy.noWorker(query, MAX_AGE_MINUTES),
  expired: (query) => errorCopy.expired(query, MAX_AGE_MINUTES),
};

/** A report's work: when it cannot be handed on, the person gets "try again" with the command to re-run. */
const report = (lane: TaskLane, run: Task<typeof ReportRequestSchema>['run']) =>
  task({
    lane,
    schema: ReportRequestSchema,
    run,
    unavailable: (deps, { audience, query }, why) =>
      deps.replies.privately(audience, notice(reportAnswers[why](query))),
  });

/** A message for the agent that cannot be handed on: the person hears so where they wrote, with their text. */
const turnUnavailable = (deps: Deps, turn: Turn, why: Unavailable) =>
  deps.replies.privately(
    { userId: turn.userId, channel: turn.channel, threadTs: turn.threadTs },
    agentUnavailable(turn.text, why),
  );

const agentAnswers: Record<Unavailable, (text: string) => Message> = {
  store: errors.storeUnavailable,
  restarting: errors.restarting,
  no_worker: (text) => errors.noWorker(text, MAX_AGE_MINUTES),
  expired: (text) => errors.expired(text, MAX_AGE_MINUTES),
};

const agentUnavailable = (text: string, why: Unavailable) => agentAnswers[why](text);

/**
 * Every kind of work a door hands on after its ack: its lane, the schema of its data (plain and serialisable:
 * decoded text, ids, where to answer; checked again where it runs, which may be another process) and the function
 * that does it.
 */
export const TASKS = {
  'agent.start': task({
    lane: 'agent',
    schema: CommandStartSchema,
    run: runCommandStart,
    unavailable: (deps, { audience, prompt }, why) => deps.replies.privately(audience, agentUnavailable(prompt, why)),
  }),
  'agent.turn': task({
    lane: 'agent',
    schema: TurnSchema,
    run: handleTurn,
    unavailable: turnUnavailable,
  }),
  'agent.pane': task({
    lane: 'agent',
    schema: PaneTurnSchema,
    run: runPaneTurn,
    unavailable: (deps, { turn }, why) => turnUnavailable(deps, turn, why),
  }),
  'agent.shortcut': task({
    lane: 'agent',
    schema: ShortcutSubmissionSchema,
    run: runShortcutStart,
    unavailable: (deps, { userId, origin, instruction }, why) =>
      deps.replies.privately(
        { userId, channel: origin.channel, threadTs: origin.threadTs },
        agentUnavailable(instruction, why),
      ),
  }),
  // Slack's Stop on a job's agent session, or `/agent stop` (agent/session/stop.ts).
  'agent.stop': task({
    lane: 'agent',
    schema: StopRequestSchema,
    run: runStop,
    unavailable: (deps, { userId, channel, threadTs, responseUrl }, why) =>
      deps.replies.privately({ userId, channel, threadTs, responseUrl }, agentUnavailable('/agent stop', why)),
  }),
  'home.opened': task({ lane: 'agent', schema: TabOpenedSchema, run: tabOpened }),
  'visitors.report': report('reports', runReport),
  'visitors.turn_page': report('reports', runTurnPage),
  'visitors.share': report('reports', runShare),
  'visitors.digest': task({ lane: 'reports', schema: DigestRequestSchema, run: runDigest }),
  // An occurrence of a subscription's scheduler (digest/scheduler.ts): the engine runs each once.
  'visitors.scheduled_digest': task({ lane: 'digests', schema: ScheduledDigestSchema, run: runScheduledDigest }),
  // Charts and exports make dozens of requests each: lanes of their own, never delaying reports or the agent.
  'visitors.export': report('exports', runExport),
  'visitors.chart': report('charts', runChart),
  'visitors.share_chart': report('charts', runShareChart),
  'insights.show': task({
    lane: 'reports',
    schema: InsightsRequestSchema,
    run: runInsights,
    unavailable: (deps, request) => insightsUnavailable(deps, request),
  }),
  'insights.turn_page': task({
    lane: 'reports',
    schema: InsightsRequestSchema,
    run: runInsightsPage,
    unavailable: (deps, request) => insightsUnavailable(deps, request),
  }),
  'insights.export': task({
    lane: 'exports',
    schema: InsightsRequestSchema,
    run: runInsightsExport,
    unavailable: (deps, request) => insightsUnavailable(deps, request),
  }),
};

export type TaskKind = keyof typeof TASKS;
export type TaskData<K extends TaskKind> = z.infer<(typeof TASKS)[K]['schema']>;
export type Dispatch = <K extends TaskKind>(kind: K, data: TaskData<K>) => Promise<void>;

type AnyTask = Task<z.ZodType>;

/**
 * Hands a door's work to its lane. When the lane cannot take it (Redis does not answer), the person is told so at
 * once, with their text, instead of hearing nothing; so too when no worker takes the lane (the web role alone).
 */
export function createDispatch(deps: () => Deps): Dispatch {
  return async (kind, data) => {
    const definition = TASKS[kind] as AnyTask;
    const { lanes, workspace, now, served, log } = deps();
    try {
      await lanes.tasks[definition.lane].add({ kind, workspace, data, queuedAt: now() });
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      log.error('queue.unavailable', { op: 'dispatch', kind, error });
      return definition.unavailable?.(deps(), data, 'store');
    }
    if (served && (await served(definition.lane)) === false) {
      log.warn('queue.no_worker', {
        lane: definition.lane,
        kind,
        message: 'No worker takes this lane: its work waits. Start ROLE=worker processes on this Redis.',
      });
      await definition.unavailable?.(deps(), data, 'no_worker');
    }
  };
}

/**
 * Runs one handed-on task where the lane's worker is, with its workspace's deps: its data is checked against its
 * kind's schema first. Work a person waits for that was queued more than TASK_MAX_AGE_MS ago is answered as expired.
 */
export async function runTask(deps: Deps, { kind, workspace, data, queuedAt }: TaskEnvelope): Promise<void> {
  const definition = (TASKS as Record<string, AnyTask>)[kind];
  if (!definition) throw new Error(`unknown task kind ${kind}`);
  const scoped = await deps.workspaces.scope(workspace);
  const parsed = definition.schema.parse(data);
  const waitedMs = queuedAt === undefined ? 0 : deps.now() - queuedAt;
  if (definition.unavailable && waitedMs > TASK_MAX_AGE_MS) {
    deps.log.warn('queue.task_expired', { kind, waited_ms: waitedMs, max_age_ms: TASK_MAX_AGE_MS });
    return definition.unavailable(scoped, parsed, 'expired');
  }
  await definition.run(scoped, parsed);
}

/**
 * Tells the person behind each handed-on task that never started, when the in-process queue stops with it waiting
 * ("restarting, run it again"): acked work is answered, not dropped in silence. Other lanes' jobs are tracking,
 * which the job store keeps.
 */
export async function answerUnstarted(deps: Deps, jobs: readonly UnstartedJob[]): Promise<void> {
  for (const job of jobs) {
    const envelope = TaskEnvelopeSchema.safeParse(job.data);
    if (!envelope.success) continue;
    const { kind, workspace } = envelope.data;
    const answer = (TASKS as Record<string, AnyTask>)[kind]?.unavailable;
    const data = (TASKS as Record<string, AnyTask>)[kind]?.schema.safeParse(envelope.data.data);
    const scoped = await deps.workspaces.scope(workspace).catch(() => undefined);
    if (!answer || !data?.success || !scoped) continue;
    await answer(scoped, data.data, 'restarting').catch((error: unknown) => {
      deps.log.warn('queue.unstarted_unanswered', { kind, error });
    });
  }
}
