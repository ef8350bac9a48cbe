import { expect } from 'vitest';
import type { RecordedRequest, Simulator } from '../../tools/simulator/server.js';
import type { Envelope, SocketModeStandin } from '../../tools/slack-standin/index.js';
import { type FakeSlackApi, type SlackCall, say } from '../fakes/fake-slack-api.js';
import { postForm, postInteraction, postJson } from '../fakes/signed-request.js';
import { slashCommand } from '../fixtures/slack.js';
import { eventually, TEST_PROJECT_ID, type TestApp } from './test-app.js';

/** Slack shows the person an error when a request or envelope is not acknowledged within 3 s. */
export const SLACK_ACK_MS = 3_000;

/** Waits `ms` so that what must not happen (a second post, a poll) would have happened by then. */
export const settle = (ms = 400) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where a step sends its request: an app booted in this process or one running as its own process. */
export interface Target {
  url: string;
}

export interface CommandOptions {
  /** The id of the command's `response_url` on the stand-in (answers arrive as `response_url:<id>`). */
  responseId?: string;
  user?: string;
  channel?: string;
  /** Any other form field Slack sends (`trigger_id`, `team_id`…). */
  fields?: Record<string, string>;
  /** Which app gets it (over HTTP); the app booted last when left out. */
  app?: Target;
}

export interface CommandResult {
  status: number;
  /** From sending to the acknowledgement. */
  ms: number;
  /** What the app answered in the acknowledgement (a command's immediate private answer), if anything. */
  ack: Record<string, unknown> | undefined;
  responseId: string;
}

export interface StartedJob {
  jobId: string;
  rootTs: string;
}

/** The envelope, once asserted to be acknowledged within Slack's window. */
export function ackedInTime(envelope: Envelope): Envelope {
  expect(envelope.ackedAt, `envelope ${envelope.envelope_id} acknowledged`).toBeDefined();
  expect((envelope.ackedAt ?? Number.POSITIVE_INFINITY) - envelope.sentAt).toBeLessThan(SLACK_ACK_MS);
  return envelope;
}

const JOB_IN_ROOT = /job `([^`]+)`/;

/** The job id a root message update names, if any: in its status line, or in a plan card's metadata. */
export function jobIdOfUpdate(call: SlackCall): string | undefined {
  const metadata = call.args.metadata as { event_type?: string; event_payload?: { job_id?: string } } | undefined;
  if (metadata?.event_type === 'mintlify_agent_job' && metadata.event_payload?.job_id) {
    return metadata.event_payload.job_id;
  }
  return JSON.stringify(call.args.blocks ?? '').match(JOB_IN_ROOT)?.[1];
}

/** Root message ts → job id, from every `chat.update` (or a plan card's `chat.stopStream`) that names a job. */
export function boundRoots(slack: FakeSlackApi): Map<string, string> {
  const roots = new Map<string, string>();
  for (const call of [...slack.callsTo('chat.stopStream'), ...slack.callsTo('chat.update')]) {
    const jobId = jobIdOfUpdate(call);
    if (jobId) roots.set(call.args.ts as string, jobId);
  }
  return roots;
}

/**
 * What people do in Slack and what tests then read, through the harness's stand-in, simulator and app: a command
 * as typed and its private answer, events and their redeliveries, a job's root message and its thread.
 */
export abstract class Steps {
  abstract get slack(): FakeSlackApi;
  abstract get sim(): Simulator;
  abstract get app(): TestApp;
  /** The Socket Mode connection steps go over, when the app runs in Socket Mode. */
  protected abstract get overSocket(): SocketModeStandin | undefined;
  #commands = 0;
  /**
   * The root and job of every job this harness started (`ts job`): with the stand-in reset between cases, an earlier
   * case's root updated late (its job ended or vanished) would otherwise look like a fresh one. A reset stand-in
   * hands out its message timestamps again, so the pair names a root, not its timestamp alone.
   */
  #started = new Set<string>();
  #lastResponseId = '';

  /** `user` writes `typed` in `channel`: stored by the stand-in; returns the events Slack delivers for it. */
  say(user: string, channel: string, typed: string, options?: Parameters<typeof say>[4]) {
    return say(this.slack, user, channel, typed, options);
  }

  /**
   * Runs a slash command as a person types it (`/agent Fix the <Note> callout`): the stand-in puts it on the wire,
   * over HTTP or the Socket Mode connection, and it must be acknowledged (200, or an ack within 3 s).
   */
  async command(typed: string, options: CommandOptions = {}): Promise<CommandResult> {
    const [, command, text = ''] = /^(\/\S+)(?: ([\s\S]*))?$/.exec(typed) ?? [];
    if (!command) throw new Error(`not a slash command: ${typed}`);
    const responseId = options.responseId ?? `cmd${++this.#commands}`;
    this.#lastResponseId = responseId;
    const fields = slashCommand({
      command,
      text,
      response_url: this.slack.responseUrl(responseId),
      ...(options.user && { user_id: options.user }),
      ...(options.channel && { channel_id: options.channel }),
      ...options.fields,
    });
    const started = performance.now();
    const socket = options.app ? undefined : this.overSocket;
    if (socket) {
      const envelope = ackedInTime(await socket.slashCommand(fields));
      return { status: 200, ms: performance.now() - started, ack: envelope.ackPayload, responseId };
    }
    const res = await postForm((options.app ?? this.app).url, fields);
    const body = await res.text();
    const ms = performance.now() - started;
    expect(res.status, `${command} acknowledged (${body.slice(0, 200)})`).toBe(200);
    return { status: res.status, ms, ack: body ? JSON.parse(body) : undefined, responseId };
  }

  /** What the app posted to a command's or a click's `response_url` so far. */
  answers(responseId: string): SlackCall[] {
    return this.slack.callsTo(`response_url:${responseId}`);
  }

  /**
   * Waits for the private answer on a `response_url`: the `n`th post there, to the last command when no id is
   * given (an answer given in the acknowledgement is the command's `ack` instead).
   */
  answer(responseId = this.#lastResponseId, n = 0, timeoutMs = 5_000): Promise<SlackCall> {
    return eventually(() => this.answers(responseId)[n], timeoutMs, `answer ${n} on ${responseId}`);
  }

  /** Runs a command as typed and reads the text of its private answer (a `response_url` post, ephemeral). */
  async privately(typed: string, options: CommandOptions = {}): Promise<string> {
    await this.command(typed, options);
    const reply = await this.answer();
    expect(reply.args.response_type).toBe('ephemeral');
    return String(reply.args.text);
  }

  /** The app's posts in `channel` whose text says `words` (a digest's title). */
  postsSaying(channel: string, words: string): SlackCall[] {
    return this.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.args.channel === channel && String(c.args.text).includes(words));
  }

  /**
   * Delivers events as Slack does, each acknowledged (signed HTTP, or the Socket Mode connection); a `retry`
   * attempt marks them as Slack's redelivery of the same events; `app` picks the instance (over HTTP).
   */
  async deliver(
    events: Record<string, unknown> | Record<string, unknown>[],
    { retry = 0, app }: { retry?: number; app?: Target } = {},
  ): Promise<void> {
    const socket = app ? undefined : this.overSocket;
    for (const event of [events].flat()) {
      if (socket) {
        ackedInTime(await socket.event(event, retry));
        continue;
      }
      const headers: Record<string, string> = retry
        ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' }
        : {};
      expect((await postJson((app ?? this.app).url, event, { headers })).status, 'event acknowledged').toBe(200);
    }
  }

  /**
   * Delivers an interaction (a click, a modal submitted) as Slack does, over HTTP or the Socket Mode connection;
   * resolves with what the app put in its acknowledgement (a view submission's `response_action`), if anything.
   */
  async interact(payload: Record<string, unknown>, { app }: { app?: Target } = {}) {
    const socket = app ? undefined : this.overSocket;
    if (socket) return ackedInTime(await socket.interaction(payload)).ackPayload as Record<string, unknown> | undefined;
    const res = await postInteraction((app ?? this.app).url, payload);
    const body = await res.text();
    expect(res.status, `interaction acknowledged (${body.slice(0, 200)})`).toBe(200);
    return body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
  }

  /** Runs `/agent <prompt>` and waits until its root message names the job; refusals fail the step. */
  async startJob(prompt: string, options: CommandOptions = {}): Promise<StartedJob> {
    // Roots of earlier jobs are updated too (a status, an outcome): the new root is one not bound before (in any
    // of the stand-in's workspaces).
    const stored = new Set(boundRoots(this.slack).keys());
    const { ack, responseId } = await this.command(`/agent ${prompt}`, options);
    if (ack) throw new Error(`/agent was answered at once: ${String(ack.text)}`);
    const job = await eventually(
      () => {
        const fresh = [...boundRoots(this.slack)].filter(
          ([ts, id]) => !stored.has(ts) && !this.#started.has(`${ts} ${id}`),
        );
        const mine = fresh.length === 1 ? fresh[0] : fresh.find(([ts]) => this.#rootText(ts).includes(prompt));
        if (mine) return { rootTs: mine[0], jobId: mine[1] };
        const refused = this.answers(responseId)[0];
        if (refused) throw new Error(`/agent was refused: ${String(refused.args.text)}`);
        return undefined;
      },
      8_000,
      `the job for "${prompt}"`,
    );
    expect(this.sim.getJob(job.jobId), 'the job the root names').toBeDefined();
    this.#started.add(`${job.rootTs} ${job.jobId}`);
    return job;
  }

  /** Waits until the store binds the thread to a job (of one of `projects`). */
  jobOf(channel: string, threadTs: string, projects = [TEST_PROJECT_ID]) {
    return eventually(
      () => this.app.app.deps.store.jobs.forThread(projects, channel, threadTs),
      5_000,
      'the job bound to the thread',
    );
  }

  /** Messages the app posted in the thread under `rootTs`. */
  threadPosts(rootTs: string): SlackCall[] {
    return this.slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === rootTs);
  }

  /** The blocks of the app's last update of the root message `rootTs`, as JSON (`""` before any update). */
  lastRootUpdate(rootTs: string): string {
    const updates = this.slack.callsTo('chat.update').filter((c) => c.args.ts === rootTs);
    return JSON.stringify(updates.at(-1)?.args.blocks ?? '');
  }

  /** Jobs the app asked the service to create. */
  creates(): RecordedRequest[] {
    return this.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/job'));
  }

  /** Follow-ups the app sent to the service. */
  followUps(): RecordedRequest[] {
    return this.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/message'));
  }

  #rootText(ts: string): string {
    const update = this.slack.callsTo('chat.update').find((c) => c.args.ts === ts)?.args.blocks;
    return JSON.stringify(update ?? this.slack.messages.find((m) => m.ts === ts)?.blocks ?? '');
  }
}
