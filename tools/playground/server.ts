import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { type RunningApp, startApp } from '../../src/app/app.js';
import { parseConfig } from '../../src/config/config.js';
import { createLogger, type Logger } from '../../src/log.js';
import { type ScriptedEnd, type Simulator, startSimulator } from '../simulator/server.js';
import { type SlackStandin, startSlackStandin } from '../slack-standin/index.js';
import { ChannelView, slackTs } from './channel.js';
import { createDelivery, type Delivery } from './delivery.js';
import { json, readJson, serveAsset, serveFile } from './http.js';
import { Modals, submittedValues } from './modal.js';

export const PLAYGROUND_PROJECT = 'playground';
const COMMANDS = new Set(['/agent', '/visitors', '/insights']);

export interface Knobs {
  /** How long a new job (or follow-up run) stays active. */
  jobDurationSec: number;
  /** How the next runs end. */
  nextEnd: ScriptedEnd;
}

export interface PlaygroundOptions {
  /** Default 0 (any free port). */
  port?: number;
  log?: Logger;
}

export interface Playground {
  url: string;
  app: RunningApp;
  simulator: Simulator;
  slack: SlackStandin;
  close(): Promise<void>;
}

const SendSchema = z.object({
  text: z.string().max(4000),
  threadTs: z.string().optional(),
  /** Typed in the app's Messages tab (the person's DM with it) rather than the channel. */
  dm: z.boolean().optional(),
});
const ActionSchema = z.object({
  key: z.string(),
  actionId: z.string(),
  blockId: z.string().optional(),
  value: z.string().optional(),
  type: z.enum(['button', 'feedback_buttons']).optional(),
});
const StopSchema = z.object({ channel: z.string(), threadTs: z.string() });
const ModalSchema = z.object({
  id: z.string(),
  action: z.enum(['submit', 'close']),
  values: z.record(z.string(), z.string()).default({}),
});
const KnobsSchema = z.object({
  jobDurationSec: z.number().min(0).max(600).optional(),
  nextEnd: z.enum(['pull_request', 'no_changes', 'failed', 'archived']).optional(),
  fault: z.enum(['mintlify_429', 'mintlify_5xx', 'slack_429', 'slack_5xx']).optional(),
});

/**
 * The whole bot without Slack or a key: the real app (`startApp`, memory store) talking to the Slack stand-in
 * (through `SLACK_API_URL`) and the simulator, and a page where a person types into a channel. What they type
 * reaches the app as Slack would send it: wire-encoded text in signed requests.
 */
export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  const log = options.log ?? createLogger('warn');
  const knobs: Knobs = { jobDurationSec: 8, nextEnd: 'pull_request' };
  const simulator = await startSimulator({
    jobDurationMs: () => knobs.jobDurationSec * 1000,
    scriptedEnd: () => knobs.nextEnd,
  });
  // An agent_view app, as manifest.yml declares: its jobs' threads are agent sessions with Slack's Stop button.
  const slack = await startSlackStandin(undefined, 0, { view: 'agent_view' });
  const { workspace } = slack;
  const signingSecret = randomBytes(16).toString('hex');
  const config = parseConfig({
    SLACK_BOT_TOKEN: workspace.botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: slack.apiUrl,
    // Never leaves this machine: the simulator accepts any `mint_` key.
    MINTLIFY_API_KEY: `mint_playground_${randomBytes(8).toString('hex')}`,
    MINTLIFY_PROJECT_ID: PLAYGROUND_PROJECT,
    MINTLIFY_API_URL: simulator.url,
    PORT: '0',
    METRICS_PORT: '0',
    POLL_INTERVAL_MS: '1000',
    POLL_MAX_INTERVAL_MS: '2000',
    LOG_LEVEL: 'warn',
  });
  // Like the playground's own page, the app it runs is for this machine only.
  const app = await startApp(config, { log, host: '127.0.0.1' });
  const appUrl = `http://127.0.0.1:${app.port}`;

  const me = present(
    workspace.users.find((u) => !u.isBot),
    'a person',
  );
  const channel = present(workspace.channels[0], 'a channel');
  const userName = (id: string) => {
    const user = workspace.users.find((u) => u.id === id);
    return user ? user.displayName || user.realName : undefined;
  };
  const view = new ChannelView(slack, {
    user: userName,
    channel: (id) => workspace.channels.find((c) => c.id === id)?.name,
    fileUrl: (file) => (file.id ? `/files/${encodeURIComponent(file.id)}` : undefined),
  });
  const delivery: Delivery = createDelivery({ slack, appUrl, signingSecret });
  const modals = new Modals(() => slack.tenant().views, { user: userName });

  const dm = `D${me.id}`;

  async function send(
    text: string,
    threadTs: string | undefined,
    inDm: boolean | undefined,
  ): Promise<{ ok: boolean; error?: string }> {
    const trimmed = text.trim();
    if (trimmed === '') return { ok: false, error: 'Type a message or a command.' };
    const command = /^(\/\S+)\s*([\s\S]*)$/.exec(trimmed);
    if (command) {
      const [, name = '', rest = ''] = command;
      if (!COMMANDS.has(name))
        return { ok: false, error: `${name} is not a valid command. Try /agent, /visitors or /insights.` };
      const id = randomUUID();
      view.expectResponse(id, { channel: channel.id, user: me.id });
      const reply = await delivery.command({
        command: name,
        text: rest,
        user: me,
        channel,
        responseUrl: slack.responseUrl(id),
      });
      if (reply) view.directReply(id, reply);
      return { ok: true };
    }
    // A reply in the assistant pane's thread is a message in the person's DM with the app.
    const pane = threadTs ? slack.tenant().assistantThread(`D${me.id}`, threadTs) : undefined;
    if (pane) {
      await delivery.events(slack.people.says(me.id, pane.channel, trimmed, { threadTs }).events);
      return { ok: true };
    }
    // The Messages tab: a message starts a thread of the DM; a reply in one of its threads steers it.
    if (inDm || (threadTs && slack.tenant().message(dm, threadTs))) {
      await delivery.events(slack.people.says(me.id, dm, trimmed, threadTs ? { threadTs } : {}).events);
      return { ok: true };
    }
    const ts = slackTs();
    const wire = delivery.encode(trimmed);
    slack.messages.push({ channel: channel.id, ts, user: me.id, text: wire, ...(threadTs && { thread_ts: threadTs }) });
    await delivery.message({ text: wire, ts, threadTs, user: me, channel });
    return { ok: true };
  }

  async function act(input: z.infer<typeof ActionSchema>): Promise<{ ok: boolean; error?: string }> {
    const message = view.messages(me.id).find((m) => m.key === input.key);
    if (!message) return { ok: false, error: 'That message is gone.' };
    const id = randomUUID();
    view.expectResponse(id, {
      channel: message.channel,
      user: me.id,
      threadTs: message.threadTs,
      original: message.key,
    });
    await delivery.action({
      actionId: input.actionId,
      type: input.type,
      blockId: input.blockId,
      value: input.value,
      user: me,
      channel,
      messageTs: message.ts,
      threadTs: message.threadTs,
      ephemeral: message.ephemeral,
      responseUrl: slack.responseUrl(id),
    });
    return { ok: true };
  }

  async function modal(input: z.infer<typeof ModalSchema>): Promise<{ ok: boolean; error?: string }> {
    const shown = modals.current();
    const stored = slack.tenant().views.find((v) => v.id === input.id);
    if (!shown || !stored || shown.id !== input.id) return { ok: false, error: 'That modal is closed.' };
    if (input.action === 'close') {
      modals.close(input.id);
      return { ok: true };
    }
    const values = submittedValues(shown, input.values);
    modals.answered(input.id, await delivery.submit({ view: stored.view, id: stored.id, user: me, values }));
    return { ok: true };
  }

  function turn(input: z.infer<typeof KnobsSchema>): void {
    if (input.jobDurationSec !== undefined) knobs.jobDurationSec = input.jobDurationSec;
    if (input.nextEnd) knobs.nextEnd = input.nextEnd;
    switch (input.fault) {
      case 'mintlify_429':
        simulator.injectFault({ kind: 'rate-limit', retryAfterSec: 5, count: 1 });
        break;
      case 'mintlify_5xx':
        simulator.injectFault({ kind: 'status', status: 503, count: 3 });
        break;
      case 'slack_429':
        slack.fail('chat.postMessage', { status: 429, retryAfterSec: 3 });
        break;
      case 'slack_5xx':
        // Slack sometimes stores the message and still answers 5xx: the app must not post it twice.
        slack.fail('chat.postMessage', { status: 503, afterStoring: true });
        break;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && (await serveAsset(url.pathname, res))) return;
    if (req.method === 'GET' && url.pathname === '/api/state') {
      return json(res, 200, {
        me: { id: me.id, name: userName(me.id) },
        channel,
        people: workspace.users.map((u) => ({ id: u.id, name: userName(u.id), bot: !!u.isBot })),
        knobs,
        messages: view.messages(me.id),
        modal: modals.current() ?? null,
        view: slack.view,
        prompts: slack.tenant().messagesTabPrompts.get(dm) ?? null,
        sessions: slack.tenant().agentSessions.map(({ channel: c, threadTs, status, title }) => ({
          channel: c,
          threadTs,
          status,
          title,
        })),
      });
    }
    const file = /^\/files\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && file) return serveFile(slack.files, decodeURIComponent(file[1] ?? ''), res);
    if (req.method === 'POST' && url.pathname.startsWith('/api/')) {
      const body = await readJson(req);
      switch (url.pathname) {
        case '/api/send': {
          const input = SendSchema.safeParse(body);
          if (!input.success) return json(res, 400, { ok: false, error: 'Send {"text": "…"}' });
          return json(res, 200, await send(input.data.text, input.data.threadTs, input.data.dm));
        }
        case '/api/action': {
          const input = ActionSchema.safeParse(body);
          if (!input.success) return json(res, 400, { ok: false, error: 'Unknown action' });
          return json(res, 200, await act(input.data));
        }
        case '/api/messages-tab': {
          // The person opens the app's Messages tab while looking at the channel: the playground is an agent_view app.
          slack.view = 'agent_view';
          await delivery.events(slack.people.opensMessagesTab(me.id, { context: channel.id }).events);
          return json(res, 200, { ok: true });
        }
        case '/api/assistant': {
          // The person opens the app's assistant pane next to the channel: a thread of their DM with the app, in an
          // app created with assistant_view.
          slack.view = 'assistant_view';
          const opened = slack.people.opensAssistant(me.id, { context: channel.id });
          await delivery.events(opened.events);
          return json(res, 200, { ok: true, threadTs: opened.threadTs });
        }
        case '/api/stop': {
          // Slack's Stop button on a processing session's thread.
          const input = StopSchema.safeParse(body);
          if (!input.success) return json(res, 400, { ok: false, error: 'Send {"channel": "…", "threadTs": "…"}' });
          const session = slack.tenant().agentSession(input.data.channel, input.data.threadTs);
          if (session?.status !== 'processing') return json(res, 200, { ok: false, error: 'Nothing to stop there.' });
          await delivery.events(slack.people.stopsSession(me.id, input.data.channel, input.data.threadTs));
          return json(res, 200, { ok: true });
        }
        case '/api/modal': {
          const input = ModalSchema.safeParse(body);
          if (!input.success) return json(res, 400, { ok: false, error: 'Send {"id": "V…", "action": "submit"}' });
          return json(res, 200, await modal(input.data));
        }
        case '/api/knobs': {
          const input = KnobsSchema.safeParse(body);
          if (!input.success) return json(res, 400, { ok: false, error: z.prettifyError(input.error) });
          turn(input.data);
          return json(res, 200, { ok: true, knobs });
        }
      }
    }
    json(res, 404, { error: 'Not found' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      log.error('playground.error', { error });
      if (!res.headersSent) json(res, 500, { ok: false, error: error.message });
    });
  });
  const stopParts = async () => {
    await app.stop();
    await simulator.close();
    await slack.close();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    await stopParts();
    throw error;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  return {
    url,
    app,
    simulator,
    slack,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await stopParts();
    },
  };
}

function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`The stand-in workspace needs ${what}`);
  return value;
}
