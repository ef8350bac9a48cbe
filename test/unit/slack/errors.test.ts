import { describe, expect, it } from 'vitest';
import { classifySlackError, isNotInChannel, slackErrorCode } from '../../../src/slack/errors.js';

/** Errors shaped as @slack/web-api throws them. */
const platform = (error: string) =>
  Object.assign(new Error(error), { code: 'slack_webapi_platform_error', data: { ok: false, error } });
const http = (statusCode: number) => Object.assign(new Error('http'), { code: 'slack_webapi_http_error', statusCode });
const rateLimited = (retryAfter: number) =>
  Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter });
const request = () => Object.assign(new Error('socket hang up'), { code: 'slack_webapi_request_error' });

describe('slackErrorCode', () => {
  it.each([
    ['a platform refusal', platform('not_in_channel'), 'not_in_channel'],
    ['an HTTP error', http(503), 'http_503'],
    ['a request error', request(), 'slack_webapi_request_error'],
    ['anything else', new Error('boom'), 'unknown_error'],
  ])('reads %s', (_case, error, code) => {
    expect(slackErrorCode(error)).toBe(code);
  });
});

describe('classifySlackError: what a failed call means for trying again', () => {
  it.each([
    ['a 429: wait Retry-After', rateLimited(7), { kind: 'rate_limited', code: 'ratelimited', retryAfterMs: 7_000 }],
    [
      'a 429 without a delay: at least a second',
      rateLimited(0),
      { kind: 'rate_limited', code: 'ratelimited', retryAfterMs: 1_000 },
    ],
    ['a 5xx: Slack may have done it', http(502), { kind: 'transient', code: 'http_502' }],
    ['a dropped request', request(), { kind: 'transient', code: 'slack_webapi_request_error' }],
    ['internal_error', platform('internal_error'), { kind: 'transient', code: 'internal_error' }],
    ['a revoked token: an admin must act', platform('token_revoked'), { kind: 'misconfigured', code: 'token_revoked' }],
    ['a missing scope', platform('missing_scope'), { kind: 'misconfigured', code: 'missing_scope' }],
    ['an archived channel: never', platform('is_archived'), { kind: 'final', code: 'is_archived' }],
    ['blocks refused: never', platform('invalid_blocks'), { kind: 'final', code: 'invalid_blocks' }],
  ])('%s', (_case, error, expected) => {
    expect(classifySlackError(error)).toEqual(expected);
  });
});

describe('isNotInChannel', () => {
  it.each(['not_in_channel', 'channel_not_found', 'is_archived'])('says %s is fixed by inviting the bot', (code) => {
    expect(isNotInChannel(platform(code))).toBe(true);
  });
  it('says nothing of other refusals', () => {
    expect(isNotInChannel(platform('msg_too_long'))).toBe(false);
  });
});
