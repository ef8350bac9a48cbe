import { randomUUID } from 'node:crypto';
import type { InstallProvider } from '@slack/oauth';
import type { WebClient } from '@slack/web-api';
import type { Renewal } from '../app/removal.js';
import type { Config } from '../config/config.js';
import type { OAuthConfig } from '../config/oauth-config.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createMintlifyClient, type MintlifyClient } from '../mintlify/client.js';
import { createSlackClient } from '../slack/client.js';
import type { TokenRefusals } from '../slack/token-refusals.js';
import type { Store } from '../store/store.js';
import type { WorkspaceRef } from '../workspace-ref.js';
import { type BotToken, botTokenOf, renewalOf } from './bot-token.js';
import { createInstallations, type Installations, type StoredInstallation } from './installations.js';
import { createSecrets, type Secrets } from './secrets.js';

/** Checking a key in the connect modal: the whole answer to Slack is due within 3 s. */
const CHECK_TIMEOUT_MS = 2_000;

/** What serving many workspaces adds to the app: sealed secrets, the installations, clients per workspace. */
export interface Tenancy {
  secrets: Secrets;
  installations: Installations;
  /** Bolt's installer on these installations: installs, and renews rotating tokens. */
  provider: InstallProvider;
  /** The bot token to work with, renewed first when it rotates. */
  botToken: BotToken;
  /** Renews a workspace's rotating bot token now, saying what Slack answered (a removal's confirmation). */
  renew(tenant: string, installation: StoredInstallation): Promise<Renewal>;
  /** A Web API client with a workspace's bot token; Slack refusing it is `refusals`' to hear. */
  slackFor(token: string, ref: WorkspaceRef): WebClient;
  /** A Mintlify client for a key not saved yet (the connect modal): short deadline, no retries. */
  checkClient(apiKey: string): MintlifyClient;
}

export function createTenancy(
  config: Config & { oauth: OAuthConfig },
  parts: {
    store: Store;
    log: Logger;
    metrics: Metrics;
    slackTimeoutMs?: number | undefined;
    refusals: Pick<TokenRefusals, 'seen'>;
  },
  installer: (installations: Installations) => InstallProvider,
): Tenancy {
  const { store, log, metrics } = parts;
  const secrets = createSecrets(config.oauth.encryptionKey, config.oauth.previousEncryptionKeys);
  const installations = createInstallations(store, secrets, log, randomUUID());
  const provider = installer(installations);
  return {
    secrets,
    installations,
    provider,
    botToken: botTokenOf(provider),
    renew: renewalOf(createSlackClient(config, metrics, log, parts.slackTimeoutMs, ''), config.oauth, installations),
    slackFor: (token, ref) =>
      createSlackClient(config, metrics, log, parts.slackTimeoutMs, token, (code) => parts.refusals.seen(ref, code)),
    checkClient: (apiKey) =>
      createMintlifyClient({
        apiUrl: config.mintlify.apiUrl,
        keyFor: () => apiKey,
        log,
        timeoutMs: CHECK_TIMEOUT_MS,
        getRetries: 0,
        onResponse: metrics.serviceResponse,
      }),
  };
}
