import { describe, expect, it } from 'vitest';
import { blockKitProblems } from '../../tools/slack-standin/index.js';
import type { SlackCall } from '../fakes/fake-slack-api.js';
import { USER_ID } from '../fixtures/slack.js';
import { useHarness } from '../support/harness.js';
import { eventually } from '../support/test-app.js';

// 150 channels, each with its own project: every help that lists the projects once passed the 3,000 characters a
// section takes, and Slack refused the whole answer (invalid_blocks), so the person got no help at all.
const COUNT = 150;
const ROUTES = Array.from({ length: COUNT }, (_, i) => `C${String(i).padStart(4, '0')}DOCS:proj_documentation_${i}`);
const DM = 'D123ALICE';

describe('help with many projects', () => {
  const h = useHarness({ env: { MINTLIFY_CHANNEL_PROJECTS: ROUTES.join(',') }, boot: true });

  /** The command's answer: in its ack, or on its response_url. */
  async function answerTo(typed: string): Promise<{ text?: unknown; blocks?: unknown }> {
    const { ack, responseId } = await h.command(typed);
    return ack ?? (await h.answer(responseId)).args;
  }

  function expectFits(answer: { text?: unknown; blocks?: unknown } | undefined, what: string) {
    expect(answer, what).toBeDefined();
    expect(blockKitProblems(answer?.blocks ?? []), what).toEqual([]);
    expect(String(answer?.text).length, what).toBeLessThanOrEqual(40_000);
  }

  it.each(['/agent help', '/insights help', '/visitors help', '/agent --project', '/visitors --project proj_nope 7d'])(
    '%s posts, the list cut with how many more and where they all are',
    async (typed) => {
      const answer = await answerTo(typed);
      expectFits(answer, typed);
      const shown = JSON.stringify(answer.blocks ?? answer.text);
      expect(shown).toContain('This channel uses project `proj_test`');
      expect(shown).toMatch(/and \d+ more/);
      expect(shown).toContain('`/agent projects` lists them all');
    },
  );

  it('/agent projects lists every one', async () => {
    const answer = await answerTo('/agent projects');
    expectFits(answer, '/agent projects');
    for (let i = 0; i < COUNT; i++) expect(String(answer.text)).toContain(`\`proj_documentation_${i}\``);
  });

  it('help in a DM posts', async () => {
    await h.deliver(h.say(USER_ID, DM, 'help').events);
    const reply: SlackCall = await eventually(() => h.slack.callsTo('chat.postEphemeral')[0], 5_000, 'the help');
    expectFits(reply.args, 'help in a DM');
    expect(JSON.stringify(reply.args.blocks)).toMatch(/and \d+ more/);
  });
});
