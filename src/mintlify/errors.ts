export type MintlifyErrorCode = 'invalid_request' | 'unauthorized' | 'not_found' | 'rate_limited' | 'unavailable';

/** Base of every failure the client reports. Messages name the operation and the project, never the key. */
export abstract class MintlifyError extends Error {
  abstract readonly code: MintlifyErrorCode;
  constructor(
    readonly operation: string,
    readonly project: string,
    message: string,
  ) {
    super(`${operation} (project ${project}): ${message}`);
  }
}

/** 400, or input the client refused to send. `serviceMessage` is safe to show the user. */
export class InvalidRequestError extends MintlifyError {
  override name = 'InvalidRequestError';
  readonly code = 'invalid_request';
  constructor(
    operation: string,
    project: string,
    readonly serviceMessage: string,
    readonly details: string[] = [],
  ) {
    super(operation, project, [serviceMessage, ...details].join('; '));
  }
}

/** 401 or 403: the project's key is wrong or lacks access. The admin has to act, not the user. */
export class UnauthorizedError extends MintlifyError {
  override name = 'UnauthorizedError';
  readonly code = 'unauthorized';
}

export class NotFoundError extends MintlifyError {
  override name = 'NotFoundError';
  readonly code = 'not_found';
}

export class RateLimitedError extends MintlifyError {
  override name = 'RateLimitedError';
  readonly code = 'rate_limited';
  constructor(
    operation: string,
    project: string,
    readonly retryAfterMs: number,
  ) {
    super(operation, project, `rate limited, retry in ${Math.ceil(retryAfterMs / 1000)}s`);
  }
}

/** Network failure, timeout, 5xx or a response that does not match the contract. */
export class UnavailableError extends MintlifyError {
  override name = 'UnavailableError';
  readonly code = 'unavailable';
  constructor(
    operation: string,
    project: string,
    message: string,
    /** The request may have reached the service and done its work (a timeout, a 5xx); false when it never left. */
    readonly ambiguous: boolean,
    readonly status?: number,
  ) {
    super(operation, project, message);
  }
}

export function isMintlifyError(error: unknown): error is MintlifyError {
  return error instanceof MintlifyError;
}
