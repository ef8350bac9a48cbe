import type { AllMiddlewareArgs, AnyMiddlewareArgs, Context } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { type AccessRule, accessMiddleware, accessOf, requesterOf, verdictFor } from '../../../src/slack/access.js';
import { captureLogs } from '../../support/logs.js';

const OPEN: AccessRule = { allowedUsers: [], allowedChannels: [] };
const CLOSED: AccessRule = { allowedUsers: ['U1'], allowedChannels: ['C1', 'D1'] };

describe('verdictFor', () => {
  it.each([
    ['no lists: everyone, everywhere', OPEN, 'U9', 'C9', { allowed: true }],
    ['a listed person in a listed channel', CLOSED, 'U1', 'C1', { allowed: true }],
    ['a listed person in a listed DM', CLOSED, 'U1', 'D1', { allowed: true }],
    ['someone not listed', CLOSED, 'U9', 'C1', { allowed: false, reason: 'user' }],
    ['a listed person elsewhere', CLOSED, 'U1', 'C9', { allowed: false, reason: 'channel' }],
  ])('%s', (_case, rule, userId, channel, expected) => {
    expect(verdictFor(rule, { userId, channel })).toEqual(expected);
  });

  it('refuses a person of another organisation unless the rule allows them; then the lists decide', () => {
    const who = { userId: 'U1', channel: 'C1', external: true };
    expect(verdictFor(OPEN, who)).toEqual({ allowed: false, reason: 'external' });
    expect(verdictFor({ ...OPEN, allowExternal: true }, who)).toEqual({ allowed: true });
    expect(verdictFor({ ...CLOSED, allowExternal: true }, { ...who, userId: 'U9' })).toMatchObject({ reason: 'user' });
  });
});

describe('requesterOf', () => {
  it.each([
    ['a slash command', { command: '/agent', user_id: 'U1', channel_id: 'C1' }, { userId: 'U1', channel: 'C1' }],
    [
      'a message event',
      { type: 'event_callback', event: { user: 'U1', channel: 'C1' } },
      { userId: 'U1', channel: 'C1' },
    ],
    [
      'a button click',
      { type: 'block_actions', user: { id: 'U1' }, channel: { id: 'C1' } },
      { userId: 'U1', channel: 'C1' },
    ],
    [
      'a click in a message without a channel object',
      { type: 'block_actions', user: { id: 'U1' }, container: { channel_id: 'C1' } },
      { userId: 'U1', channel: 'C1' },
    ],
    [
      'a view submission (no channel)',
      { type: 'view_submission', user: { id: 'U1' } },
      { userId: 'U1', channel: undefined },
    ],
    [
      'a command with empty ids',
      { command: '/agent', user_id: '', channel_id: '' },
      { userId: undefined, channel: undefined },
    ],
  ])('reads %s', (_case, body, expected) => {
    expect(requesterOf(body)).toEqual(expected);
  });
});

describe('accessMiddleware', () => {
  async function run(rule: AccessRule, body: Record<string, unknown>): Promise<Context> {
    const context: Context = { isEnterpriseInstall: false };
    let called = false;
    const next = async () => {
      called = true;
    };
    await accessMiddleware(
      rule,
      captureLogs().log,
    )({ body, context, next } as unknown as AnyMiddlewareArgs & AllMiddlewareArgs);
    expect(called).toBe(true);
    return context;
  }

  it('leaves the verdict for the listeners and always lets the request through', async () => {
    expect(accessOf(await run(CLOSED, { command: '/agent', user_id: 'U9', channel_id: 'C1' }))).toEqual({
      allowed: false,
      reason: 'user',
    });
    expect(accessOf(await run(CLOSED, { command: '/agent', user_id: 'U1', channel_id: 'C1' }))).toEqual({
      allowed: true,
    });
  });

  it('judges the author of an event by their own team against the workspace the app serves', async () => {
    const event = (team: Record<string, string>) => ({
      type: 'event_callback',
      event: { user: 'U1', channel: 'C1', ...team },
    });
    // On Enterprise Grid, Slack is asked which enterprise the person belongs to.
    const asked: unknown[] = [];
    const client = (enterprise: string | undefined, fails = false) => ({
      users: {
        info: async (args: unknown) => {
          asked.push(args);
          if (fails)
            throw Object.assign(new Error('An API error occurred: ratelimited'), { data: { error: 'ratelimited' } });
          return {
            ok: true,
            user: { id: 'U1', ...(enterprise && { enterprise_user: { enterprise_id: enterprise } }) },
          };
        },
      },
    });
    const inWorkspace = async (
      body: Record<string, unknown>,
      context: Partial<Context> = {},
      slack = client(undefined),
    ) => {
      const ctx: Context = { isEnterpriseInstall: false, teamId: 'T1', ...context };
      await accessMiddleware(
        OPEN,
        captureLogs().log,
      )({
        body,
        context: ctx,
        client: slack,
        next: async () => {},
      } as unknown as AnyMiddlewareArgs & AllMiddlewareArgs);
      return accessOf(ctx);
    };
    expect(await inWorkspace(event({ user_team: 'T9', team: 'T9' }))).toEqual({ allowed: false, reason: 'external' });
    expect(await inWorkspace(event({ team: 'T9' }))).toEqual({ allowed: false, reason: 'external' });
    expect(await inWorkspace(event({ user_team: 'T1', team: 'T1' }))).toEqual({ allowed: true });
    expect(await inWorkspace(event({}))).toEqual({ allowed: true });
    expect(asked).toEqual([]);

    const grid = { enterpriseId: 'E1', isEnterpriseInstall: true };
    expect(await inWorkspace(event({ team: 'T5' }), grid, client('E1'))).toEqual({ allowed: true });
    expect(await inWorkspace(event({ team: 'T9' }), grid, client('E2'))).toEqual({
      allowed: false,
      reason: 'external',
    });
    expect(await inWorkspace(event({ team: 'T9' }), grid, client(undefined))).toEqual({
      allowed: false,
      reason: 'external',
    });
    expect(await inWorkspace(event({ team: 'T5' }), { enterpriseId: 'E1' }, client('E1'))).toEqual({ allowed: true });
    expect(await inWorkspace(event({ team: 'T5' }), grid, client('E1', true))).toEqual({
      allowed: false,
      reason: 'external',
    });
    expect(asked).toEqual(Array(5).fill({ user: 'U1' }));
  });

  it('gives no verdict (read as refused) when the payload names nobody or nowhere', async () => {
    expect(accessOf(await run(OPEN, { type: 'view_submission', user: { id: 'U1' } }))).toEqual({
      allowed: false,
      reason: 'user',
    });
  });
});
