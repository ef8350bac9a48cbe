import type { SlackStandin } from '../server.js';
import type { Tenant } from '../tenant.js';
import type { Enterprise } from '../workspace.js';

export type Args = Record<string, unknown>;

/** What the stand-in sends back: a JSON body, or raw bytes (a file, an HTML page) with their content type. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  raw?: Buffer | string;
  /** A file's bytes: sent in chunks (`SlackStandin.fileServing`), and how many went out before the client hung up. */
  served?: (bytes: number) => void;
}

/** One Web API call, routed by its token to the workspace it acts in. */
export interface MethodCall {
  method: string;
  args: Args;
  tenant: Tenant;
  slack: SlackStandin;
  /** Set when the call came with an organisation's org-wide token (`tenant` is then the workspace it acts in). */
  org?: Enterprise;
}

export type Handler = (call: MethodCall) => Answer;

export function ok(body: Record<string, unknown> = {}): Answer {
  return { status: 200, headers: {}, body: { ok: true, ...body } };
}

/** Slack's refusals are HTTP 200 with `ok: false` and an error code. */
export function refuse(error: string, extra: Record<string, unknown> = {}): Answer {
  return { status: 200, headers: {}, body: { ok: false, error, ...extra } };
}

/** Slack's answer to a call missing a required argument. */
export function missing(...names: string[]): Answer {
  const messages = names.map((n) => `[ERROR] missing required field: ${n}`);
  return refuse('invalid_arguments', { response_metadata: { messages } });
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A form field holding a boolean arrives as the string "true" (or 1). */
export function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}
