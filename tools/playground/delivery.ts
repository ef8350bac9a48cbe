import { randomUUID } from 'node:crypto';
import {
  messageWire,
  type SlackStandin,
  type StandinChannel,
  type StandinUser,
  slackSignature,
  slashCommandWire,
} from '../slack-standin/index.js';
import { slackTs } from './channel.js';

/** What the playground sends the app, shaped as Slack sends it: wire-encoded text, in signed requests. */
export interface Delivery {
  /** A typed message as Slack puts it on the wire (`@name` → `<@U…>`, links, `&` `<` `>` escaped). */
  encode(typed: string): string;
  /** Events the stand-in made for what a person did (the assistant pane), signed and posted as Slack does. */
  events(envelopes: readonly Record<string, unknown>[]): Promise<void>;
  /** A slash command; resolves to the app's direct reply (the body of its acknowledgement), if it gave one. */
  command(input: {
    command: string;
    text: string;
    user: StandinUser;
    channel: StandinChannel;
    responseUrl: string;
  }): Promise<DirectReply | undefined>;
  /** A message event (and `app_mention` too when it mentions the bot, as Slack sends both). */
  message(input: {
    text: string;
    ts: string;
    threadTs?: string | undefined;
    user: StandinUser;
    channel: StandinChannel;
  }): Promise<void>;
  action(input: {
    actionId: string;
    /** The element's type: `button`, or `feedback_buttons` for a thumb of a `context_actions` block. */
    type?: string | undefined;
    blockId?: string | undefined;
    value?: string | undefined;
    user: StandinUser;
    channel: StandinChannel;
    messageTs: string;
    threadTs?: string | undefined;
    ephemeral: boolean;
    responseUrl: string;
  }): Promise<void>;
  /** A modal's submission with its inputs' state; resolves to the app's ack body (`response_action`), if any. */
  submit(input: { view: Record<string, unknown>; id: string; user: StandinUser; values: ViewValues }): Promise<unknown>;
}

/** `view.state.values` as Slack sends them: by block id, then action id. */
export type ViewValues = Record<string, Record<string, Record<string, unknown>>>;

/** A message in a command's HTTP response, as Slack reads it: ephemeral unless `response_type` says `in_channel`. */
export interface DirectReply {
  text?: unknown;
  blocks?: unknown;
  response_type?: unknown;
}

/** Slack shows a JSON body as a message, and a plain-text body as its text; an empty body shows nothing. */
async function directReply(res: Response): Promise<DirectReply | undefined> {
  const body = await res.text();
  if (!res.ok || body.trim() === '') return undefined;
  if (!res.headers.get('content-type')?.includes('application/json')) return { text: body };
  const parsed: unknown = JSON.parse(body);
  return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
}

export function createDelivery(options: { slack: SlackStandin; appUrl: string; signingSecret: string }): Delivery {
  const { slack, appUrl, signingSecret } = options;
  const ws = slack.workspace;

  async function post(body: string, contentType: string): Promise<Response> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = slackSignature(body, timestamp, signingSecret);
    const res = await fetch(`${appUrl}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': signature,
      },
      body,
    });
    return res;
  }
  const send = async (body: string, contentType: string) => void (await (await post(body, contentType)).arrayBuffer());
  const form = (fields: Record<string, string>) =>
    post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');

  function envelope(event: Record<string, unknown>) {
    return {
      token: 'playground',
      team_id: ws.teamId,
      api_app_id: ws.appId,
      type: 'event_callback',
      event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: ws.teamId, user_id: ws.botUserId, is_bot: true }],
      event,
    };
  }

  return {
    encode: (typed) => messageWire(typed, ws),
    async events(envelopes) {
      for (const envelope of envelopes) await send(JSON.stringify(envelope), 'application/json');
    },
    async command({ command, text, user, channel, responseUrl }) {
      const res = await form({
        token: 'playground',
        team_id: ws.teamId,
        team_domain: ws.teamDomain,
        channel_id: channel.id,
        channel_name: channel.name,
        user_id: user.id,
        user_name: user.name,
        command,
        text: slashCommandWire(text),
        api_app_id: ws.appId,
        response_url: responseUrl,
        trigger_id: `trigger-${randomUUID()}`,
      });
      return directReply(res);
    },
    async message({ text, ts, threadTs, user, channel }) {
      const event = {
        type: 'message',
        channel: channel.id,
        channel_type: 'channel',
        user: user.id,
        text,
        ts,
        client_msg_id: randomUUID(),
        event_ts: ts,
        team: ws.teamId,
        ...(threadTs && { thread_ts: threadTs }),
      };
      await send(JSON.stringify(envelope(event)), 'application/json');
      if (text.includes(`<@${ws.botUserId}>`)) {
        await send(
          JSON.stringify(envelope({ ...event, type: 'app_mention', event_ts: slackTs() })),
          'application/json',
        );
      }
    },
    async action(input) {
      const payload = {
        type: 'block_actions',
        team: { id: ws.teamId, domain: ws.teamDomain },
        user: { id: input.user.id, username: input.user.name, team_id: ws.teamId },
        api_app_id: ws.appId,
        token: 'playground',
        container: {
          type: 'message',
          message_ts: input.messageTs,
          channel_id: input.channel.id,
          is_ephemeral: input.ephemeral,
          ...(input.threadTs && { thread_ts: input.threadTs }),
        },
        trigger_id: `trigger-${randomUUID()}`,
        channel: { id: input.channel.id, name: input.channel.name },
        response_url: input.responseUrl,
        actions: [
          {
            action_id: input.actionId,
            block_id: input.blockId ?? 'block',
            type: input.type ?? 'button',
            ...(input.value !== undefined && { value: input.value }),
            action_ts: slackTs(),
          },
        ],
      };
      await (await form({ payload: JSON.stringify(payload) })).arrayBuffer();
    },
    async submit({ view, id, user, values }) {
      const payload = {
        type: 'view_submission',
        team: { id: ws.teamId, domain: ws.teamDomain },
        user: { id: user.id, username: user.name, team_id: ws.teamId },
        api_app_id: ws.appId,
        token: 'playground',
        trigger_id: `trigger-${randomUUID()}`,
        view: { ...view, id, team_id: ws.teamId, app_id: ws.appId, state: { values } },
      };
      const res = await form({ payload: JSON.stringify(payload) });
      const body = await res.text();
      const json = res.headers.get('content-type')?.includes('application/json') && body.trim() !== '';
      return json ? JSON.parse(body) : undefined;
    },
  };
}
