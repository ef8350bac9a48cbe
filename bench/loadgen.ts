/**
 * Open-loop load generator, in its own process: fires signed Slack requests on a fixed schedule whatever
 * the responses do, and times each one from dispatch to the response headers (Slack's 200).
 */
import { Agent, request } from 'node:http';
import { SIGNING_SECRET, slackSignature } from '../test/fakes/signed-request.js';
import { slashCommand, threadReply } from '../test/fixtures/slack.js';
import { serve } from './lib/rpc.js';

export type Kind = 'agent' | 'visitors' | 'reply';

export interface LoadRequest {
  url: string;
  kind: Kind;
  rate: number;
  durationMs: number;
  responseUrl: string;
  /** Bound threads to reply in (kind `reply`). */
  threads: string[];
  /** Distinguishes prompts across runs. */
  tag: string;
}

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  timedOut: number;
  /** Milliseconds from dispatch to response headers, for 200s. */
  latencies: number[];
  /** How late dispatches were against the schedule (generator health). */
  maxSlipMs: number;
  firstFailure?: string;
}

const DRAIN_MS = 10_000;

function body(load: LoadRequest, i: number): { text: string; type: string } {
  if (load.kind === 'reply') {
    const thread = load.threads[i % load.threads.length] ?? '';
    return { text: JSON.stringify(threadReply(thread, { text: `bench follow-up ${load.tag} ${i}` })), type: 'json' };
  }
  const fields =
    load.kind === 'agent'
      ? slashCommand({ text: `bench ack ${load.tag} ${i}`, response_url: load.responseUrl })
      : // Distinct ranges and row counts, so most reports miss the 60 s cache and go to the service.
        slashCommand({
          command: '/visitors',
          text: `${1 + (Math.floor(i / 250) % 90)}d top ${1 + (i % 250)}`,
          response_url: load.responseUrl,
        });
  return { text: new URLSearchParams(fields).toString(), type: 'form' };
}

function run(load: LoadRequest): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const target = new URL('/slack/events', load.url);
  const total = Math.round((load.rate * load.durationMs) / 1000);
  const spacing = 1000 / load.rate;
  const result: LoadResult = { sent: 0, ok: 0, failed: 0, timedOut: 0, latencies: [], maxSlipMs: 0 };
  let done = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const settle = () => {
    done++;
    if (done === total) finish();
  };

  const fire = (i: number) => {
    const { text, type } = body(load, i);
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    const req = request(
      target,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(text),
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(text, timestamp, SIGNING_SECRET),
        },
      },
      (res) => {
        const latency = performance.now() - started;
        if (res.statusCode === 200) {
          result.ok++;
          result.latencies.push(latency);
        } else {
          result.failed++;
          result.firstFailure ??= `HTTP ${res.statusCode}`;
        }
        res.resume();
        res.on('end', settle);
        res.on('error', settle);
      },
    );
    req.on('error', (error) => {
      result.failed++;
      result.firstFailure ??= error.message;
      settle();
    });
    req.end(text);
    result.sent++;
  };

  const start = performance.now();
  let next = 0;
  return new Promise<LoadResult>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * spacing <= now) {
        result.maxSlipMs = Math.max(result.maxSlipMs, now - (start + next * spacing));
        fire(next++);
      }
      if (next < total) setTimeout(tick, Math.max(0, Math.min(1, start + next * spacing - performance.now())));
      else {
        const drain = setTimeout(() => finish(), DRAIN_MS);
        void finished.then(() => {
          clearTimeout(drain);
          result.timedOut = total - done;
          agent.destroy();
          resolve(result);
        });
      }
    };
    if (total === 0) resolve(result);
    else tick();
  });
}

serve({ run: (load: LoadRequest) => run(load) });
