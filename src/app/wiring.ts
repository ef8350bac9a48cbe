import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { createQuota } from '../agent/quota.js';
import { sessionFollowsJob } from '../agent/session/status.js';
import { createTracker } from '../agent/tracking/track.js';
import type { Config } from '../config/config.js';
import { createProjects } from '../config/projects.js';
import { createJobWatchers, type Deps } from '../deps.js';
import { homeFollowsJob } from '../home/publish.js';
import { LANES, type LaneDefinitions, type Lanes, laneDefinitions, TASK_LANES } from '../lanes.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createMintlifyClient } from '../mintlify/client.js';
import { servedLanes } from '../queue/consumers.js';
import type { Engine } from '../queue/engine.js';
import { createReplies } from '../slack/reply.js';
import type { Store } from '../store/store.js';
import type { Tenancy } from '../tenants/tenancy.js';
import { tenantWorkspaces, type WorkspaceParts } from '../tenants/workspaces.js';
import { singleWorkspace } from '../workspace.js';
import { SINGLE_WORKSPACE as SINGLE } from '../workspace-ref.js';
import { answerNoWorker, createDispatch, type Work } from './dispatch.js';

export interface Parts {
  log: Logger;
  metrics: Metrics;
  store: Store;
  storeLoss?: Deps['storeLoss'];
  stopping?: AbortSignal;
  /** The app's own Web API client: the one workspace's bot token, or none when the app serves many. */
  slack: WebClient;
  engine: Engine;
  /** The work doors hand on and what runs it (`app.ts`' `WORK`). */
  work: Work;
  /** Set when the app serves many workspaces (OAuth mode). */
  tenancy?: Tenancy | undefined;
  /** Whether the one workspace still has the app (single-workspace mode); installed when left out. */
  installed?: (() => boolean) | undefined;
  /** The projects the one workspace was served before and no longer is (`recordServedProjects`). */
  formerProjects?: readonly string[] | undefined;
}

export interface WiringOptions {
  mintlifyTimeoutMs?: number | undefined;
  /** The clock features read (tests accelerate it). */
  now?: (() => number) | undefined;
  /** Digest schedulers every this many ms instead of at their cron times (tests, with their clock). */
  digestEveryMs?: number | undefined;
  /** The tracking lanes' first retry wait (tests shorten it: `lanes.ts`). */
  retryDelayMs?: number | undefined;
}

/** The adding side of every lane. */
export function lanesOf(engine: Engine, definitions: LaneDefinitions = LANES): Lanes {
  const tasks = Object.fromEntries(TASK_LANES.map((lane) => [lane, engine.lane(definitions.tasks[lane])]));
  return {
    tasks: tasks as Lanes['tasks'],
    polls: engine.lane(definitions.polls),
    outcomes: engine.lane(definitions.outcomes),
    refreshes: engine.lane(definitions.refreshes),
    homes: engine.lane(definitions.homes),
  };
}

/**
 * The deps every feature takes from, whatever the process's role (benchmarks build them too, to call one feature
 * directly). Only this function knows how they are made.
 */
export function buildDeps(config: Config, options: WiringOptions, parts: Parts): Deps {
  const { log, metrics, store, slack, engine, tenancy, work } = parts;
  const projects = createProjects(config, parts.formerProjects);
  const now = options.now ?? Date.now;
  const lanes = lanesOf(engine, laneDefinitions(options.retryDelayMs));
  const mintlify = (keyFor: (project: string) => string) =>
    createMintlifyClient({
      apiUrl: config.mintlify.apiUrl,
      keyFor,
      log,
      onResponse: metrics.serviceResponse,
      ...(options.mintlifyTimeoutMs && { timeoutMs: options.mintlifyTimeoutMs }),
    });
  const deps: Deps = {
    config,
    log,
    metrics,
    store,
    ...(parts.storeLoss && { storeLoss: parts.storeLoss }),
    ...(parts.stopping && { stopping: parts.stopping }),
    projects,
    slack,
    replies: createReplies({ slack, log }),
    mintlify: mintlify(projects.keyFor),
    instanceId: randomUUID(),
    now,
    digestEveryMs: options.digestEveryMs,
    jobWatchers: createJobWatchers(log, () => deps, [homeFollowsJob, sessionFollowsJob]),
    dispatch: createDispatch(() => deps, work),
    quota: createQuota(store),
    tracker: createTracker({ config, now, workspace: SINGLE }, lanes.polls),
    lanes,
    ...(config.role === 'web' && {
      served: servedLanes(
        engine,
        answerNoWorker(() => deps, work),
      ),
    }),
    workspace: SINGLE,
    workspaces: tenancy
      ? tenantWorkspaces({
          ...tenancy,
          root: () => deps,
          build: (own) => workspaceDeps(deps, own, work),
          mintlifyFor: mintlify,
        })
      : singleWorkspace(() => deps, parts.installed),
  };
  return deps;
}

/**
 * A workspace's deps when the app serves many: its own Slack client, Mintlify client, projects, store view and
 * what is built on them (answers, hand-offs, quota, tracking); the rest is the app's.
 */
export function workspaceDeps(root: Deps, own: WorkspaceParts, work: Work): Deps {
  const deps: Deps = {
    ...root,
    ...own,
    replies: createReplies({ slack: own.slack, log: own.log }),
    dispatch: createDispatch(() => deps, work),
    quota: createQuota(own.store),
    tracker: createTracker({ config: root.config, now: root.now, workspace: own.workspace }, root.lanes.polls),
    jobWatchers: root.jobWatchers?.serving(() => deps),
  };
  return deps;
}
