import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { guardMetrics } from './metrics-guard.js';

/**
 * What the app counts, in Prometheus' text format on `GET /metrics`. Features call these named functions; only
 * this module knows prom-client. Labels are bounded: kinds, methods, codes, statuses and configured projects,
 * never a job, user, channel or message id.
 */
export interface Metrics {
  readonly contentType: string;
  /** For modules that register their own metrics (the queue engine's). */
  readonly registry: Registry;
  /** The text a scrape returns. */
  render(): Promise<string>;
  jobStarted(project: string): void;
  pollResult(result: PollResult): void;
  outcomePosted(kind: string): void;
  /** A person's 👍 (`up`) or 👎 (`down`) on a job's outcome. */
  feedback(project: string, vote: 'up' | 'down'): void;
  /** A redelivery or a second attempt that was recognised, so nothing was sent twice. */
  duplicatePrevented(kind: DuplicateKind): void;
  /** A Slack Web API call that failed: Slack's error string, `http_<status>`, `ratelimited` or `request_error`. */
  slackApiError(method: string, code: string): void;
  /** One answer of the Mintlify API: its HTTP status, or `timeout` / `network`. */
  serviceResponse(operation: string, status: number | 'timeout' | 'network'): void;
  /** One request from Slack handled: how long until it was acknowledged. */
  slackRequest(kind: string, ackMs: number | undefined, outcome: RequestOutcome): void;
  /** A listener that threw, before its ack or after it (the doors of `endsAtAck` end their request at the ack). */
  listenerError(kind: string): void;
  storeError(op: string): void;
  /** The store lost its data: its marker vanished, or a polled job's record was gone. */
  storeDataLost(found: 'marker' | 'record'): void;
  /** Readings taken at scrape time from the running app. */
  observe(sources: MetricSources): void;
}

export type PollResult = 'running' | 'ended' | 'failed' | 'gone';
export type DuplicateKind = 'event' | 'message' | 'outcome';
export type RequestOutcome = 'ok' | 'error' | 'not_acked';

export interface QuotaReading {
  project: string;
  kind: string;
  used: number;
  left: number;
}

export interface MetricSources {
  trackedJobs(): Promise<number>;
  quota(): Promise<QuotaReading[]>;
}

const PREFIX = 'mintlify_slack_';

export interface MetricsOptions {
  /**
   * Label jobs and quotas by project (default). Off when the app serves many workspaces: their project ids are
   * theirs (unbounded, and naming customers), so jobs are counted in all and quota gauges are left out.
   */
  projectLabels?: boolean;
}

/** One registry per app, so several apps in one process (tests) never share counts. */
export function createMetrics({ projectLabels = true }: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  // Process metrics, among them nodejs_eventloop_lag_seconds.
  collectDefaultMetrics({ register: registry });
  let sources: MetricSources | undefined;

  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name: PREFIX + name, help, labelNames, registers: [registry] });

  const jobsStarted = counter('jobs_started_total', 'Agent jobs created from Slack', projectLabels ? ['project'] : []);
  const polls = counter('polls_total', 'Job polls by result', ['result']);
  const outcomes = counter('outcomes_posted_total', 'Job outcomes posted in their thread, by kind', ['kind']);
  const feedback = counter('agent_feedback_total', 'Votes on outcomes', projectLabels ? ['project', 'vote'] : ['vote']);
  const duplicates = counter('duplicates_prevented_total', 'Repeated deliveries or posts recognised', ['kind']);
  const slackErrors = counter('slack_api_errors_total', 'Failed Slack Web API calls', ['method', 'code']);
  const service = counter('service_responses_total', 'Mintlify API answers', ['operation', 'status']);
  const storeErrors = counter('store_errors_total', 'Store operations that failed', ['op']);
  const dataLost = counter('store_data_lost_total', 'Times the store was found to have lost its data', ['found']);
  const requests = counter('slack_requests_total', 'Requests from Slack handled', ['kind', 'outcome']);
  const listenerErrors = counter('slack_listener_errors_total', 'Listeners that threw, by request kind', ['kind']);
  const ack = new Histogram({
    name: `${PREFIX}ack_seconds`,
    help: 'Time from receiving a Slack request to acknowledging it, by kind',
    labelNames: ['kind'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 3],
    registers: [registry],
  });
  readingGauges(registry, projectLabels, () => sources);

  const guarded = guardMetrics(registry);
  const countRequest = guarded('slack_requests_total', (kind: string, outcome: RequestOutcome) =>
    requests.inc({ kind, outcome }),
  );
  const observeAck = guarded('ack_seconds', (kind: string, ackMs: number) => ack.observe({ kind }, ackMs / 1000));
  return {
    contentType: registry.contentType,
    registry,
    render: () => registry.metrics(),
    jobStarted: guarded('jobs_started_total', (project: string) =>
      projectLabels ? jobsStarted.inc({ project }) : jobsStarted.inc(),
    ),
    pollResult: guarded('polls_total', (result: PollResult) => polls.inc({ result })),
    outcomePosted: guarded('outcomes_posted_total', (kind: string) => outcomes.inc({ kind })),
    feedback: guarded('agent_feedback_total', (project: string, vote: string) =>
      feedback.inc(projectLabels ? { project, vote } : { vote }),
    ),
    duplicatePrevented: guarded('duplicates_prevented_total', (kind: DuplicateKind) => duplicates.inc({ kind })),
    slackApiError: guarded('slack_api_errors_total', (method: string, code: string) =>
      slackErrors.inc({ method, code }),
    ),
    serviceResponse: guarded('service_responses_total', (operation: string, status: number | string) =>
      service.inc({ operation, status: String(status) }),
    ),
    slackRequest: (kind, ackMs, outcome) => {
      countRequest(kind, outcome);
      if (ackMs !== undefined) observeAck(kind, ackMs);
    },
    listenerError: guarded('slack_listener_errors_total', (kind: string) => listenerErrors.inc({ kind })),
    storeError: guarded('store_errors_total', (op: string) => storeErrors.inc({ op })),
    storeDataLost: guarded('store_data_lost_total', (found: 'marker' | 'record') => dataLost.inc({ found })),
    observe(value) {
      sources = value;
    },
  };
}

/** Gauges read at scrape time from the running app: jobs tracked, and quotas when projects label them. */
function readingGauges(registry: Registry, projectLabels: boolean, sources: () => MetricSources | undefined): void {
  new Gauge({
    name: `${PREFIX}jobs_tracked`,
    help: 'Agent job rounds being tracked now (their polls waiting, due or running), the same on every instance',
    registers: [registry],
    async collect() {
      this.set(
        (await sources()
          ?.trackedJobs()
          .catch(() => 0)) ?? 0,
      );
    },
  });
  const quotaGauge = (name: string, help: string, pick: (q: QuotaReading) => number) =>
    new Gauge({
      name: PREFIX + name,
      help,
      labelNames: ['project', 'kind'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const reading of (await sources()
          ?.quota()
          .catch(() => [])) ?? []) {
          this.set({ project: reading.project, kind: reading.kind }, pick(reading));
        }
      },
    });
  if (projectLabels) {
    quotaGauge('quota_used', 'Hourly agent quota used, per project and kind (create, follow_up)', (q) => q.used);
    quotaGauge('quota_left', 'Hourly agent quota left, per project and kind (create, follow_up)', (q) => q.left);
  }
}
