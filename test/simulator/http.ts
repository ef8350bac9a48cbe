import { expect } from 'vitest';
import {
  type AgentJob,
  AgentJobSchema,
  AUTH_STATUSES,
  DOCUMENTED_RESPONSES,
  type JobStatus,
  type Operation,
  responseSchema,
} from '../../tools/simulator/contract.js';

// Small fetch helpers shared by the simulator tests.
export const AUTH = { Authorization: 'Bearer mint_test_key' };
export const JOBS_PATH = '/v2/agent/proj_1/job';
export const VISITORS_PATH = '/v1/analytics/proj_1/visitors';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  json: unknown;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = AUTH,
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers = { ...headers, 'Content-Type': 'application/json' };
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A job answer that conforms to the simulator's contract and has the `id` and `status` the tests act on. */
export function documentedJob(json: unknown): AgentJob & { id: string; status: JobStatus } {
  const job = AgentJobSchema.parse(json);
  if (job.id === undefined || job.status === undefined)
    throw new Error(`job without id or status: ${JSON.stringify(json)}`);
  return { ...job, id: job.id, status: job.status };
}

/**
 * Asserts that an answer is one the documents describe for `operation`: a documented status (or the 401/403 of
 * bearer auth), JSON, and a body that parses with the simulator's strict schema for it.
 */
export function expectDocumented(operation: Operation, answer: Answer): void {
  const documented = Object.keys(DOCUMENTED_RESPONSES[operation]).map(Number);
  expect([...documented, ...AUTH_STATUSES], `${operation} answered ${answer.status}`).toContain(answer.status);
  expectDocumentedBody(operation, answer);
}

/** Asserts that an answer's body is JSON of the documented shape for its status (any error: the error body). */
export function expectDocumentedBody(operation: Operation, answer: Answer): void {
  expect(answer.headers.get('content-type')).toBe('application/json');
  const result = responseSchema(operation, answer.status)?.safeParse(answer.json);
  expect(result?.error, `${operation} ${answer.status}: ${JSON.stringify(answer.json)}`).toBeUndefined();
}
