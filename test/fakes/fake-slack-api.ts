import { randomUUID } from 'node:crypto';
import { SlackStandin, type StandinUser } from '../../tools/slack-standin/index.js';
import { startedStandins } from '../support/wire-safety.js';

export type {
  EphemeralMessage,
  SlackCall,
  SlackFault,
  StoredMessage,
  StoredView,
  UploadedFile,
} from '../../tools/slack-standin/index.js';
export { BOT_ID, BOT_USER_ID } from '../../tools/slack-standin/index.js';

/**
 * The Slack stand-in as the tests know it (tools/slack-standin), with the default workspace and its tokens. Every
 * instance's outgoing bodies are checked for wire safety after its test file (test/support/wire-safety-setup.ts).
 */
export class FakeSlackApi extends SlackStandin {
  constructor() {
    super();
    startedStandins.push(this);
  }

  /** The workspace's people by id → display name, as `users.info` answers; set or delete to change who exists. */
  readonly users = new Map<string, string>(this.workspace.users.map((u) => [u.id, u.displayName || u.realName]));

  /** People's IANA zones set by a test, over the workspace's (as if they changed it in their Slack profile). */
  readonly zones = new Map<string, string>();

  override user(id: string): StandinUser | undefined {
    const name = this.users.get(id);
    if (name === undefined) return undefined;
    const known = super.user(id);
    const tz = this.zones.get(id);
    const person = known ? { ...known, displayName: name } : { id, name, realName: name, displayName: name };
    return tz ? { ...person, tz } : person;
  }
}

// --- What people do in Slack: a message as Slack stores it, and the events it delivers for it. ---

/** An Events API envelope, as Slack sends it to the app (over HTTP or in a Socket Mode `events_api` envelope). */
export type EventEnvelope = Record<string, unknown> & { event_id: string; event: Record<string, unknown> };

/**
 * `user` writes `typed` in `channel` (in `threadTs`'s thread, when given): the stand-in stores it in its wire form
 * and this returns the events Slack delivers for it: a `message`, plus an `app_mention` (same ts and client_msg_id,
 * its own event_id) when it mentions the bot outside a DM; none where the bot is not in the conversation. The test
 * delivers them (and redelivers them).
 */
export function say(
  slack: SlackStandin,
  user: string,
  channel: string,
  typed: string,
  options: Parameters<SlackStandin['postAs']>[3] = {},
): { ts: string; text: string; events: EventEnvelope[] } {
  const stored = slack.postAs(user, channel, typed, options);
  const isDm = channel.startsWith('D');
  const base = {
    user,
    text: stored.text,
    ts: stored.ts,
    channel,
    event_ts: stored.ts,
    client_msg_id: randomUUID(),
    ...(stored.thread_ts && { thread_ts: stored.thread_ts }),
    ...(stored.files && { files: stored.files }),
  };
  const message = {
    type: 'message',
    channel_type: isDm ? 'im' : 'channel',
    ...(stored.files && { subtype: 'file_share' }),
  };
  const events = [envelope(slack, { ...message, ...base })];
  const mentionsBot = stored.text.includes(`<@${slack.workspace.botUserId}>`);
  if (!isDm && mentionsBot) events.unshift(envelope(slack, { type: 'app_mention', ...base }));
  // Slack sends nothing of a conversation the bot is not in (a DM between two people): as people.says.
  return { ts: stored.ts, text: stored.text, events: slack.tenant().botIn(channel) ? events : [] };
}

function envelope(slack: SlackStandin, event: Record<string, unknown>): EventEnvelope {
  const { teamId, appId, botUserId } = slack.workspace;
  return {
    token: 'legacy-verification-token',
    team_id: teamId,
    api_app_id: appId,
    type: 'event_callback',
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
    event,
  };
}

export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  return new FakeSlackApi().start();
}
