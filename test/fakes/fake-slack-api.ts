import { SlackStandin } from '../../src/slack-standin/index.js';

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
export class FakeSlackApi extends SlackStandin {}

export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  return new FakeSlackApi().start();
}
