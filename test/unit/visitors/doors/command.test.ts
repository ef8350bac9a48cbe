import { describe, expect, it } from 'vitest';
import type { AccessRule } from '../../../../src/slack/access.js';
import { visitorsCommand } from '../../../../src/visitors/doors/command.js';
import { commandArgs } from '../../../fixtures/bolt-args.js';
import { CHANNEL_ID, USER_ID } from '../../../fixtures/slack.js';
import { type FakeDepsOptions, fakeDoorDeps, PROJECT, saidIn } from '../fake-deps.js';

const RESPONSE_URL = 'http://127.0.0.1:9/cmd';
const AUDIENCE = { userId: USER_ID, channel: CHANNEL_ID, responseUrl: RESPONSE_URL };

/** The person types `/visitors <typed>` in #docs; the door runs on its own. */
async function type(typed: string, options: FakeDepsOptions = {}, rule?: AccessRule) {
  const door = fakeDoorDeps(options);
  const args = await commandArgs({ text: typed, response_url: RESPONSE_URL }, rule);
  await visitorsCommand(door.deps, args);
  const told = door.responses.map((r) => saidIn(r.body));
  return { ...door, acks: args.acks, told };
}

describe('the /visitors door', () => {
  it('acks at once with no text and hands on a report of the range on the channel’s project', async () => {
    const { acks, handedOn, told, logs } = await type('2026-11-01 2026-11-08 top 25');
    expect(acks).toEqual([undefined]);
    expect(handedOn).toEqual([
      {
        kind: 'visitors.report',
        data: {
          query: { from: '2026-11-01', to: '2026-11-08', limit: 25, offset: 0 },
          project: PROJECT,
          audience: AUDIENCE,
        },
      },
    ]);
    expect(told).toEqual([]);
    expect(logs.text()).toContain('"event":"visitors.command"');
    expect(logs.text()).toContain('"parsed":"report"');
  });

  it('hands on a chart for `chart`, on the project the channel is routed to', async () => {
    const { handedOn } = await type('30d chart', { channelProjects: { [CHANNEL_ID]: 'proj_b' } });
    expect(handedOn).toMatchObject([
      { kind: 'visitors.chart', data: { query: { from: '2026-10-24', to: '2026-11-22' }, project: 'proj_b' } },
    ]);
    expect(handedOn[0]?.data).not.toHaveProperty('query.project');
  });

  it('keeps a named project in the query, so "try again" repeats it', async () => {
    const { handedOn } = await type('--project proj_b 7d', { channelProjects: { C9: 'proj_b' } });
    expect(handedOn).toMatchObject([
      { kind: 'visitors.report', data: { query: { project: 'proj_b' }, project: 'proj_b' } },
    ]);
  });

  it('answers an unknown project itself, naming the projects it knows, and hands on nothing', async () => {
    const { handedOn, told } = await type('--project proj_nope 7d');
    expect(handedOn).toEqual([]);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain("I don't serve a project `proj_nope`");
    expect(told[0]).toContain(`This channel uses project \`${PROJECT}\``);
  });

  it.each([
    ['banana', "I don't understand `banana`."],
    ['help', 'How to use `/visitors`'],
    ['--project', '`--project` needs a project id'],
  ])('answers `/visitors %s` with the usage itself', async (typed, expected) => {
    const { handedOn, told } = await type(typed);
    expect(handedOn).toEqual([]);
    expect(told[0]).toContain(expected);
    expect(told[0]).toContain('How to use `/visitors`');
  });

  it('decodes Slack’s wire text once: what the person typed is echoed as they typed it', async () => {
    const { told } = await type('a&b <x>');
    // Typed `a&b`, sent as `a&amp;b`, shown escaped once (`a&amp;b` in mrkdwn reads `a&b`), never twice.
    expect(told[0]).toContain("I don't understand `a&amp;b`.");
    expect(told[0]).not.toContain('&amp;amp;');
  });

  it('reads a text that arrived as an array (a repeated form field) as no text, answering with the usage', async () => {
    const door = fakeDoorDeps();
    const args = await commandArgs({ response_url: RESPONSE_URL });
    args.command.text = ['7d', '30d'] as unknown as string;
    await visitorsCommand(door.deps, args);
    expect(args.acks).toHaveLength(1);
    expect(door.handedOn).toMatchObject([{ kind: 'visitors.report', data: { query: { from: '2026-11-16' } } }]);
  });
});

describe('the /visitors door: digests', () => {
  it('hands on `digest weekly` as a subscription with the default time, on the channel’s project', async () => {
    const { handedOn, logs } = await type('digest weekly');
    expect(handedOn).toEqual([
      {
        kind: 'visitors.digest',
        data: {
          command: { kind: 'subscribe', schedule: { cadence: 'weekly', hour: 9, minute: 0, weekday: 1 } },
          project: PROJECT,
          audience: AUDIENCE,
          typed: '/visitors digest weekly',
        },
      },
    ]);
    expect(logs.text()).toContain('"parsed":"digest"');
  });

  it('lets anyone see the digest but refuses a change from outside the /agent allow-lists', async () => {
    const rule = { allowedUsers: ['U999BOSS'], allowedChannels: [] };
    expect((await type('digest', {}, rule)).handedOn).toMatchObject([{ data: { command: { kind: 'show' } } }]);
    const refused = await type('digest off', {}, rule);
    expect(refused.handedOn).toEqual([]);
    expect(refused.told[0]).toContain('Only the people and channels allowed to use `/agent`');
    expect(refused.logs.text()).toContain('visitors.digest_refused');
  });

  it('answers a schedule it does not understand with the digest help', async () => {
    const { handedOn, told } = await type('digest hourly');
    expect(handedOn).toEqual([]);
    expect(told[0]).toContain('`digest` needs `daily`, `weekly`, `monthly` or `off`.');
    expect(told[0]).toContain('*Digests* post this channel’s visitors');
  });

  it('refuses a digest of a project it does not serve', async () => {
    const { handedOn, told } = await type('--project proj_nope digest weekly');
    expect(handedOn).toEqual([]);
    expect(told[0]).toContain('`proj_nope`');
  });

  it('reads a `--project` a phone turned into a dash before `digest`', async () => {
    const { handedOn } = await type('—project proj_b digest weekly', { channelProjects: { C9: 'proj_b' } });
    expect(handedOn).toMatchObject([{ kind: 'visitors.digest', data: { project: 'proj_b' } }]);
  });
});
