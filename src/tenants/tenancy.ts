import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createMintlifyClient, type MintlifyClient } from '../mintlify/client.js';
import type { OAuthConfig } from '../oauth-config.js';
import { createSlackClient } from '../slack/client.js';
import type { Store } from '../store/store.js';
import { createInstallations, type Installations } from './installations.js';
import { createSecrets, type Secrets } from './secrets.js';

/** Checking a key in the connect modal: the whole answer to Slack is due within 3 s. */
const CHECK_TIMEOUT_MS = 2_000;

/** What serving many workspaces adds to the app: sealed secrets, the installations, clients per workspace. */
export interface Tenancy {
  secrets: Secrets;
  installations: Installations;
  /** A Web API client with a workspace's bot token. */
  slackFor(token: string): WebClient;
  /** A Mintlify client for a key not saved yet (the connect modal): short deadline, no retries. */
  checkClient(apiKey: string): MintlifyClient;
}

export function createTenancy(
  config: Config & { oauth: OAuthConfig },
  parts: { store: Store; log: Logger; metrics: Metrics; slackTimeoutMs?: number | undefined },
): Tenancy {
  const { store, log, metrics } = parts;
  const secrets = createSecrets(config.oauth.encryptionKey, config.oauth.previousEncryptionKeys);
  return {
    secrets,
    installations: createInstallations(store, secrets, log, randomUUID()),
    slackFor: (token) => createSlackClient(config, metrics, log, parts.slackTimeoutMs, token),
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
