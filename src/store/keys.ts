/**
 * Every key the app stores, built here and nowhere else, so the layout can be read (and changed) in one place.
 * Keys are relative to the store's namespace (`STORE_NAMESPACE`), which `store.ts` puts in front of each; the job
 * store's Redis scripts use the same builders through `namespaced`. Ids inside keys are Slack's or Mintlify's
 * own (validated where they enter), so they cannot forge another key's layout.
 */

/** A job, as its project and the service's id. */
export interface JobRef {
  project: string;
  jobId: string;
}

export const keys = {
  /**
   * Everything one workspace stores, when the app serves many (`Store.scoped`): every other key of this list is
   * then relative to it. A single-workspace deployment keeps its keys at the top, as it always did.
   */
  workspace: (tenant: string) => `ws:${tenant}`,
  /** A job's record (a hash on Redis). */
  job: ({ project, jobId }: JobRef) => `job:${project}:${jobId}`,
  /** Which job a thread belongs to. */
  thread: (project: string, channel: string, threadTs: string) => `thread:${project}:${channel}:${threadTs}`,
  /** A project's jobs still being tracked. */
  active: (project: string) => `active:${project}`,
  /** A person's newest jobs (App Home). */
  userJobs: (userId: string) => `user:${userId}`,
  /** A thread whose job is being created right now. */
  starting: (project: string, channel: string, threadTs: string) => `starting:${project}:${channel}:${threadTs}`,
  /** The round and status last set on a job's agent session (`agent/session/`). */
  agentSession: ({ project, jobId }: JobRef) => `session:${project}:${jobId}`,
  /** Set while the workspace's app has no agent sessions (not an agent app, a scope missing): none is tried. */
  agentSessionsOff: () => 'session:off',
  /** The root a start posted, by the start's own id (its queue job, or its message), for a run that takes it over. */
  startAttempt: (id: string) => `start:${id}`,
  /** A plan card's root still streaming (`agent/plan-stream.ts`): set at its start, dropped once it is stopped. */
  planCard: (channel: string, ts: string) => `plancard:${channel}:${ts}`,
  /** The one instance polling a job. */
  pollLease: ({ project, jobId }: JobRef) => `lease:${project}:${jobId}`,
  /** The one instance taking tracked jobs over at start (see `workers.ts`). */
  adoptTracking: () => 'tracking:adopt',
  /** When an instance last completed taking them over (instances that waited for it are done then). */
  trackingAdopted: () => 'tracking:adopted',
  /** The one instance posting a round's outcome. */
  posting: ({ project, jobId }: JobRef, round: number) => `posting:${project}:${jobId}:${round}`,
  /** Until when Slack asked every instance to wait before calling `method` again. */
  slackCooldown: (method: string) => `slack:cooldown:${method}`,
  /** The app's own budget of calls to a Slack method (rate-limiter-flexible adds the workspace after it). */
  slackBudget: (name: string) => `slack:budget:${name}`,
  /** A signed request Slack sent, by its signature: one sent again is a replay (`slack/replays.ts`). */
  slackSignature: (signature: string) => `slack:signature:${signature}`,
  /** A Slack event already handled (`event_id`), and a message already handled (`client_msg_id`). */
  seenEvent: (scope: string, eventId: string) => `event:${scope}:${eventId}`,
  seenMessage: (scope: string, clientMsgId: string) => `message:${scope}:${clientMsgId}`,
  /** An hourly budget (rate-limiter-flexible adds the project after it). */
  quota: (kind: string) => `quota:${kind}`,
  /** Cached people (display name and time zone, from `users.info`) and permalinks. */
  person: (userId: string) => `person:${userId}`,
  permalink: (channel: string, ts: string) => `permalink:${channel}:${ts}`,
  /** Where a person was when they opened (or last moved with) the assistant pane on this thread of their DM. */
  paneContext: (channel: string, threadTs: string) => `pane:${channel}:${threadTs}`,
  /** What a person last looked at with the app open (agent_view's `app_context_changed`): a channel, or none. */
  viewing: (userId: string) => `viewing:${userId}`,
  /** A project's 👍/👎 on its jobs' outcomes over the last week (App Home's ratio), and the claim guarding it. */
  feedback: (project: string) => `feedback:v1:${project}`,
  feedbackLock: (project: string) => `feedback:v1:${project}:lock`,
  /** The App Home tab a person opened last. */
  homeTab: (userId: string) => `home-tab:${userId}`,
  /** One cached page of visitors: the normalised service query. */
  visitorsPage: (project: string, from: string, toExclusive: string, limit: number, offset: number) =>
    `visitors:v1:${project}:${from}:${toExclusive}:${limit}:${offset}`,
  /** A docs page's visitors as its link's unfurl shows them (the path URI-encoded: it is the reader's text). */
  unfurlPage: (project: string, path: string) => `unfurl:v1:${project}:${encodeURIComponent(path)}`,
  /** The workspace's budget of link unfurls, a sliding window (the workspace after it; v1 was a fixed window). */
  unfurlBudget: () => 'unfurl:budget:v2',
  /** The one export of a range running in a channel: its days in a zone (another zone's are other hours). */
  visitorsExport: (project: string, channel: string, from: string, to: string, tz?: string) =>
    `visitors:export:${project}:${channel}:${from}:${to}${tz && tz !== 'UTC' ? `:${tz}` : ''}`,
  /** A person's share of a report page or chart in a channel, held a moment so a double click posts once. */
  visitorsShare: (project: string, channel: string, user: string, what: 'report' | 'chart', query: string) =>
    `visitors:share:${project}:${channel}:${user}:${what}:${query}`,
  /** The one /insights export of a view's range running in a channel (its days in a zone, as `visitorsExport`). */
  insightsExport: (project: string, channel: string, view: string, from: string, to: string, tz?: string) =>
    `insights:export:${project}:${channel}:${view}:${from}:${to}${tz && tz !== 'UTC' ? `:${tz}` : ''}`,
  /**
   * The one Draft a fix job for a thing readers struggle with (`subject`: a digest of its kind and page, term or
   * topic) in a channel: the claim taken by the form's submission, and where its job is.
   */
  insightsDraft: (project: string, channel: string, subject: string) =>
    `insights:draft:v1:${project}:${channel}:${subject}`,
  insightsDraftJob: (project: string, channel: string, subject: string) =>
    `insights:draft:v1:${project}:${channel}:${subject}:job`,
  /**
   * A channel's digest subscription of a feature (`visitors`, `insights`), the list of its subscribed channels, and
   * the claim that guards that list.
   */
  digestSubscription: (channel: string, feature = 'visitors') => `${feature}:digest:v1:sub:${channel}`,
  digestChannels: (feature = 'visitors') => `${feature}:digest:v1:channels`,
  digestChannelsLock: (feature = 'visitors') => `${feature}:digest:v1:lock`,
  /** The period a channel's digest of a feature last went out for (`src/visitors/digest/store.ts` `markSent`). */
  digestSent: (channel: string, feature = 'visitors') => `${feature}:digest:v1:sent:${channel}`,
  /** The lease of the one run posting a channel's digest of a feature now (`runScheduled`). */
  digestRun: (channel: string, feature = 'visitors') => `${feature}:digest:v1:run:${channel}`,
  /** The Slack installation serving a workspace (OAuth mode), sealed; in the workspace's scope. */
  installation: () => 'installation:v1',
  /** The Mintlify project and admin key a workspace connected in App Home, the key sealed; in its scope. */
  mintlifySettings: () => 'mintlify:settings:v1',
  /** Who installed the app and changed the connection, when (never a key), and the claim guarding it; in its scope. */
  connectionLog: () => 'mintlify:connection-log:v1',
  connectionLogLock: () => 'mintlify:connection-log:v1:lock',
  /** Every workspace (or organisation) with an installation, and the claim guarding that list: not in a scope. */
  installedWorkspaces: () => 'workspaces:v1',
  installedWorkspacesLock: () => 'workspaces:v1:lock',
  /** A known value sealed at the first start (OAuth mode): opening it proves SETTINGS_ENCRYPTION_KEY is the right one. */
  sealingCheck: () => 'secrets:check:v1',
  /**
   * Written at start and read every few seconds: when it is gone, the store lost its data (a Redis restarted without
   * persistence, a failover to an empty replica, `FLUSHDB`). Never expires.
   */
  storeMarker: () => 'store:marker',
  /** The one instance writing the first marker on an empty store (instances starting together). */
  storeMarking: () => 'store:marking',
  /** The one instance rebuilding what the store lost from Slack and the service (see `healing/`). */
  healing: () => 'store:healing',
  /** The loss (its `lostAtMs`) the last completed healing rebuilt from: instances waiting for it are done then. */
  healed: () => 'store:healed',
  /**
   * When a workspace removed the app (many-workspace mode), in its scope, kept as long as a job record: a job of it
   * whose record is missing afterwards went with the workspace, the store did not lose it.
   */
  workspaceRemoved: () => 'workspace:removed',
  /**
   * A workspace an org-wide install was taken out of (`team_access_revoked`), in the organisation's scope, which still
   * serves its other workspaces: kept until Slack grants the install that workspace again or the organisation goes.
   */
  workspaceTakenOut: (teamId: string) => `workspace:taken-out:${teamId}`,
  /**
   * Each project the deployment served and, once taken out of the configuration, since when, and the claim guarding
   * it (single-workspace mode): a reply in a job's thread of one taken out since is answered (`config/served-projects.ts`).
   */
  servedProjects: () => 'projects:served:v1',
  servedProjectsLock: () => 'projects:served:v1:lock',
  /** Set when Slack said the app was removed from the one workspace (single-workspace mode): every instance stops. */
  appRemoved: () => 'slack:app-removed',
  /** Version 0.1's layout, read once by `migrate-v1.ts`: Keyv values and a plain set. */
  legacy: {
    done: () => 'migrated:v1',
    doneLock: () => 'migrated:v1:lock',
    active: () => 'active-jobs',
    job: (jobId: string) => `job:${jobId}`,
    posted: (jobId: string, round: number) => `posted:${jobId}:${round}`,
    /** Keyv's own prefix (`<ns>::`) in front of a v1 thread key, for a SCAN pattern. */
    threadPattern: (ns: string) => `${ns}::thread:*`,
    keyvPrefix: (ns: string) => `${ns}::`,
  },
};

/** A key under the store's namespace, for code that talks to Redis directly (scripts, claims, budgets). */
export const namespaced = (ns: string, key: string) => `${ns}:${key}`;
