import type { Logger } from '../log.js';

/**
 * Why a call to Mintlify gave no answer to act on. These are expected outcomes, returned as values (only bugs
 * throw), so every caller decides with a `switch` on `code`. Messages name the operation and the project, never
 * the key.
 */
export type ServiceFailure =
  /**
   * A definite refusal: any 4xx but 401/403 (the key), 404 (gone), 408 and 429 (try later), or input the client
   * would not send. Nothing was done. `message` and `details` are safe to show the user.
   */
  | { code: 'refused'; status?: number; message: string; details: string[] }
  /** 401 or 403: the project's key is wrong or lacks access. The admin has to act, not the user. */
  | { code: 'unauthorized'; status: number; message: string }
  | { code: 'not_found'; message: string }
  /** No key for the project: the workspace disconnected Mintlify or connected another project. Nothing was sent. */
  | { code: 'not_connected' }
  /** `guessed`: the service named no wait (its documents give 429 no `Retry-After`), so `retryAfterMs` is ours. */
  | { code: 'rate_limited'; retryAfterMs: number; guessed?: true }
  /**
   * Network failure, timeout, 5xx or an answer that does not match the contract. `ambiguous`: the request may have
   * reached the service and done its work (a timeout, a 5xx); false when it never left. `lost`: what became of the
   * answer, for the person told; `status`: the HTTP status that came, if any.
   */
  | { code: 'unavailable'; reason: string; ambiguous: boolean; lost: LostAnswer; status?: number };

/** Why no usable answer came: none in time, the connection broke, an error status, or a body that is not the contract. */
export type LostAnswer = 'timeout' | 'network' | 'error_status' | 'unreadable';

export type ServiceFailureCode = ServiceFailure['code'];

export interface FailedResult {
  ok: false;
  operation: string;
  project: string;
  failure: ServiceFailure;
}

export type ServiceResult<T> = { ok: true; value: T } | FailedResult;

/** One line for logs: the operation, the project and what went wrong (never the key). */
export function describeFailure({ operation, project, failure }: FailedResult): string {
  const what = (() => {
    switch (failure.code) {
      case 'refused':
        return [failure.message, ...failure.details].join('; ');
      case 'unauthorized':
        return `${failure.status} ${failure.message}`;
      case 'not_found':
        return failure.message;
      case 'not_connected':
        return 'not connected in this workspace (no key for the project)';
      case 'rate_limited':
        return `rate limited, retry in ${Math.ceil(failure.retryAfterMs / 1000)}s`;
      case 'unavailable':
        return failure.reason;
    }
  })();
  return `${operation} (project ${project}): ${what}`;
}

/** `operation` of a job's creation (`client.ts`): a 404 there means Mintlify does not know the project. */
export const CREATE_JOB = 'create job';

/** What an operator has to fix when the failure is theirs: a refused key, or a project Mintlify does not know. */
function adminHint({ operation, project, failure }: FailedResult): string | undefined {
  if (failure.code === 'unauthorized') {
    return `check MINTLIFY_API_KEY (or MINTLIFY_API_KEYS), the admin key of project ${project}`;
  }
  if (failure.code === 'not_found' && operation === CREATE_JOB) {
    return `Mintlify does not know project ${project}: check the project id (MINTLIFY_PROJECT_ID, MINTLIFY_CHANNEL_PROJECTS, or the one given when Mintlify was connected)`;
  }
  return undefined;
}

/** Logs a failed call at the level an operator needs: a refused key, an unknown project or an outage is theirs to act on. */
export function logFailure(log: Logger, event: string, failed: FailedResult): void {
  const { failure, project } = failed;
  const fields = { outcome: failure.code, project, error: describeFailure(failed) };
  const hint = adminHint(failed);
  if (hint) log.error(event, { ...fields, hint });
  else log[failure.code === 'unavailable' ? 'error' : 'warn'](event, fields);
}

/** Whether the service may have done the work although it gave no answer (a create or follow-up may have run). */
export function mayHaveRun(failure: ServiceFailure): failure is Extract<ServiceFailure, { code: 'unavailable' }> {
  return failure.code === 'unavailable' && failure.ambiguous;
}
