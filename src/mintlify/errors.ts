import type { ErrorBody } from './schemas.js';

export type MintlifyErrorCode = 'invalid_request' | 'unauthorized' | 'not_found' | 'rate_limited' | 'unavailable';

/** Base of every failure the client reports. Messages name the operation, never the key. */
export abstract class MintlifyError extends Error {
  abstract readonly code: MintlifyErrorCode;
  constructor(
    readonly operation: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${operation}: ${message}`, options);
  }
}

/** 400, or input the client refused to send. `serviceMessage` is safe to show the user. */
export class InvalidRequestError extends MintlifyError {
  override name = 'InvalidRequestError';
  readonly code = 'invalid_request';
  constructor(
    operation: string,
    readonly serviceMessage: string,
    readonly details: string[] = [],
  ) {
    super(operation, [serviceMessage, ...details].join('; '));
  }
}

/** 401 or 403: the key is wrong or lacks access. The admin has to act, not the user. */
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
    readonly retryAfterMs: number,
  ) {
    super(operation, `rate limited, retry in ${Math.ceil(retryAfterMs / 1000)}s`);
  }
}

/** Network failure, timeout, 5xx or a response that does not match the contract. */
export class UnavailableError extends MintlifyError {
  override name = 'UnavailableError';
  readonly code = 'unavailable';
  constructor(
    operation: string,
    message: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(operation, message, options);
  }
}

export function isMintlifyError(error: unknown): error is MintlifyError {
  return error instanceof MintlifyError;
}

export function describeErrorBody(body: ErrorBody | undefined): { message: string; details: string[] } {
  return { message: body?.error ?? 'invalid request', details: body?.details?.map((d) => d.message) ?? [] };
}
