/**
 * The app's neighbours (the Slack Web API stand-in and the Mintlify simulator) in a process of their own, so the ack
 * bench can give them the priority of the machines they stand for: with `ROLE=web`, only the worker talks to them.
 */

import { type FakeSlackApi, startFakeSlackApi } from '../test/fakes/fake-slack-api.js';
import { type Simulator, type SimulatorCounts, startSimulator } from '../tools/simulator/server.js';
import { serve } from './lib/rpc.js';
import type { Kind } from './loadgen.js';

export interface StandinUrls {
  slackApiUrl: string;
  simulatorUrl: string;
  /** The response_url each kind of request carries. */
  responseUrls: Record<Kind, string>;
}

let slack: FakeSlackApi | undefined;
let sim: Simulator | undefined;

serve(
  {
    /** Starts both; `kinds` are the kinds of request that need a `response_url`. */
    async start({ kinds }: { kinds: Kind[] }): Promise<StandinUrls> {
      slack = await startFakeSlackApi();
      sim = await startSimulator({ createLimitPerHour: 1e9, followUpLimitPerHour: 1e9, jobDurationMs: 3_600_000 });
      return {
        slackApiUrl: slack.apiUrl,
        simulatorUrl: sim.url,
        responseUrls: Object.fromEntries(kinds.map((kind) => [kind, slack?.responseUrl(kind) ?? ''])) as Record<
          Kind,
          string
        >,
      };
    },
    /** Forgets what was posted and asked, so a long section does not grow the stand-ins' memory. */
    reset() {
      slack?.reset();
      if (sim) sim.requests.length = 0;
    },
    counts(): SimulatorCounts | undefined {
      return sim?.counts();
    },
  },
  async () => {
    await sim?.close();
    await slack?.close();
  },
);
