import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Authorize, HTTPReceiver, type HTTPReceiverOptions, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { SlackStandin } from '../../tools/slack-standin/index.js';

export const BOLT_SIGNING_SECRET = 'bolt-standin-secret';

export interface BoltApp {
  app: App;
  url: string;
  stop(): Promise<void>;
}

/**
 * A bare Bolt app talking to the stand-in: how Slack's own SDK takes the stand-in's events, installs and answers.
 * Over HTTP on an ephemeral port, or over Socket Mode (`socket`: the stand-in needs its Socket Mode server started).
 * It acts with the default workspace's token unless given an `authorize` or OAuth options.
 */
export async function startBoltApp(
  slack: SlackStandin,
  options: { receiver?: Partial<HTTPReceiverOptions>; authorize?: Authorize<boolean>; socket?: boolean } = {},
): Promise<BoltApp> {
  const clientOptions = { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } };
  const receiver = options.socket
    ? new SocketModeReceiver({ appToken: slack.workspace.appToken, installerOptions: { clientOptions } })
    : new HTTPReceiver({ signingSecret: BOLT_SIGNING_SECRET, ...options.receiver });
  const oauth = options.receiver?.clientId !== undefined;
  const app = new App({
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions,
    ...(options.authorize ? { authorize: options.authorize } : oauth ? {} : { token: slack.workspace.botToken }),
  });
  const server = (await app.start(0)) as Server | undefined;
  const port = (server?.address?.() as AddressInfo | undefined)?.port;
  return {
    app,
    url: port ? `http://127.0.0.1:${port}` : '',
    stop: async () => {
      await app.stop();
    },
  };
}
