import { SlackStandin, type StandinUser } from '../../src/slack-standin/index.js';

export type {
  EphemeralMessage,
  SlackCall,
  SlackFault,
  StoredMessage,
  StoredView,
  UploadedFile,
} from '../../src/slack-standin/index.js';
export { BOT_ID, BOT_USER_ID } from '../../src/slack-standin/index.js';

/** The Slack stand-in as the tests know it (src/slack-standin), with the default workspace and its tokens. */
export class FakeSlackApi extends SlackStandin {
  /** The workspace's people by id → display name, as `users.info` answers; set or delete to change who exists. */
  readonly users = new Map<string, string>(this.workspace.users.map((u) => [u.id, u.displayName || u.realName]));

  override user(id: string): StandinUser | undefined {
    const name = this.users.get(id);
    if (name === undefined) return undefined;
    const known = super.user(id);
    return known ? { ...known, displayName: name } : { id, name, realName: name, displayName: name };
  }
}

export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  return new FakeSlackApi().start();
}
