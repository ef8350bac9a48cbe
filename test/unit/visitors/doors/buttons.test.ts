import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from '../../../../src/visitors/blocks.js';
import { encodeQuery, type ReportQuery } from '../../../../src/visitors/date-range.js';
import { REPORT_BUTTON, reportButton } from '../../../../src/visitors/doors/buttons.js';
import { buttonArgs } from '../../../fixtures/bolt-args.js';
import { CHANNEL_ID, USER_ID } from '../../../fixtures/slack.js';
import { type FakeDepsOptions, fakeDoorDeps, PROJECT, saidIn } from '../fake-deps.js';

const RESPONSE_URL = 'http://127.0.0.1:9/click';
/** The query a report's buttons carry: its range, rows, page and project. */
const QUERY: ReportQuery = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 10, project: PROJECT };

const BUTTONS: [string, string][] = [
  [ACTION_IDS.prev, 'visitors.turn_page'],
  [ACTION_IDS.next, 'visitors.turn_page'],
  [ACTION_IDS.share, 'visitors.share'],
  [ACTION_IDS.csv, 'visitors.export'],
  [ACTION_IDS.chart, 'visitors.chart'],
  [ACTION_IDS.shareChart, 'visitors.share_chart'],
];

/** The person clicks `actionId` carrying `value` in #docs; the door runs on its own. */
async function click(
  actionId: string,
  value: string,
  options: FakeDepsOptions = {},
  overrides: Record<string, unknown> = {},
) {
  const deps = fakeDoorDeps(options);
  const args = buttonArgs(actionId, value, { response_url: RESPONSE_URL, ...overrides });
  await reportButton(deps.deps, args);
  return { ...deps, acks: args.acks, told: deps.responses.map((r) => saidIn(r.body)) };
}

describe.each(BUTTONS)('the %s button', (actionId, kind) => {
  it(`acks and hands on a ${kind} of the query it carries, with who clicked where`, async () => {
    const { acks, handedOn, told } = await click(actionId, encodeQuery(QUERY));
    expect(acks).toHaveLength(1);
    expect(handedOn).toEqual([
      {
        kind,
        data: {
          query: QUERY,
          project: PROJECT,
          audience: { userId: USER_ID, channel: CHANNEL_ID, responseUrl: RESPONSE_URL },
        },
      },
    ]);
    expect(told).toEqual([]);
  });

  it('refuses a forged value privately, logs it and hands on nothing', async () => {
    const { acks, handedOn, told, logs } = await click(actionId, '{"from":"../../etc"}');
    expect(acks).toHaveLength(1);
    expect(handedOn).toEqual([]);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('That button is not valid any more');
    expect(logs.text()).toContain('"event":"visitors.bad_button_value"');
    expect(logs.text()).toContain(`"action":"${actionId}"`);
  });
});

describe('every visitors button', () => {
  it('puts a report from before projects were named on the channel’s project', async () => {
    const { project: _, ...unnamed } = QUERY;
    const { handedOn } = await click(ACTION_IDS.share, encodeQuery(unnamed), {
      channelProjects: { [CHANNEL_ID]: 'proj_b' },
    });
    expect(handedOn).toMatchObject([{ data: { query: unnamed, project: 'proj_b' } }]);
  });

  it('refuses a value naming a project this bot does not serve', async () => {
    const { handedOn, told } = await click(ACTION_IDS.csv, encodeQuery({ ...QUERY, project: 'proj_gone' }));
    expect(handedOn).toEqual([]);
    expect(told[0]).toContain('not valid any more');
  });

  it('refuses a range that lies in the future', async () => {
    const future = encodeQuery({ ...QUERY, from: '2027-01-01', to: '2027-01-02' });
    expect((await click(ACTION_IDS.chart, future)).handedOn).toEqual([]);
  });

  it('refuses a click that names no conversation, answering through its response_url', async () => {
    const { handedOn, responses } = await click(
      ACTION_IDS.next,
      encodeQuery(QUERY),
      {},
      {
        channel: undefined,
        container: { type: 'view', view_id: 'V1' },
      },
    );
    expect(handedOn).toEqual([]);
    expect(responses.map((r) => r.url)).toEqual([RESPONSE_URL]);
  });

  it('takes every button of the report through one listener, and only acks a visitors button it does not know', async () => {
    expect(BUTTONS.every(([actionId]) => REPORT_BUTTON.test(actionId))).toBe(true);
    const { acks, handedOn, told, logs } = await click('visitors.retired_button', encodeQuery(QUERY));
    expect(acks).toHaveLength(1);
    expect(handedOn).toEqual([]);
    expect(told).toEqual([]);
    expect(logs.text()).toContain('"event":"visitors.unknown_button"');
  });
});
