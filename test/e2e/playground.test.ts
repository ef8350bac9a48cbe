import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../support/browser.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The docs' pictures (`docs/<name>.png`) are refreshed with UPDATE_SCREENSHOT=1; otherwise a run leaves the checkout untouched. */
const screenshotPath = (name: string) =>
  process.env.UPDATE_SCREENSHOT
    ? fileURLToPath(new URL(`../../docs/${name}.png`, import.meta.url))
    : join(tmpdir(), `mintlify-${name}-${process.pid}.png`);
const isPng = (png: Buffer) => png.subarray(1, 4).toString('latin1') === 'PNG';
/** How long to wait for the URL: the start takes a few seconds (see README), more on a loaded CI machine. */
const START_LIMIT_MS = 45_000;

/** Runs `npm run playground`'s entry point as a person would, and reads the one URL it prints. */
async function startPlaygroundProcess(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tools/playground/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PLAYGROUND_PORT: '0', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within ${START_LIMIT_MS} ms; printed: ${out}`));
    }, START_LIMIT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const found = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    });
    child.once('exit', (code) => reject(new Error(`playground exited with ${code}: ${out}`)));
  });
  return { child, url };
}

/** Pixels between the end of the text before a message's first mention and the mention (a column gap if laid out so). */
function gapBeforeMention(message: Locator): Promise<number> {
  interface Box {
    left: number;
    right: number;
  }
  interface Node {
    previousSibling: Node | null;
    getBoundingClientRect(): Box;
    ownerDocument: { createRange(): { selectNodeContents(node: Node): void; getBoundingClientRect(): Box } };
  }
  return message
    .locator('.content .mention')
    .first()
    .evaluate((mention: Node) => {
      const before = mention.ownerDocument.createRange();
      before.selectNodeContents(mention.previousSibling ?? mention);
      return mention.getBoundingClientRect().left - before.getBoundingClientRect().right;
    });
}

describe.skipIf(!chromiumPath)('the playground in a real browser', () => {
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    ({ child, url } = await startPlaygroundProcess());
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  async function api(path: string, body: unknown) {
    const answer = await page.request.post(new URL(path, url).href, { data: body });
    expect(answer.ok()).toBe(true);
  }

  async function type(selector: string, text: string) {
    await page.locator(selector).fill(text);
    await page.locator(selector).press('Enter');
  }

  it('runs /agent, shows the PR link in its thread, takes a follow-up, pages /visitors, and is screenshotted', async () => {
    await page.goto(url);
    await page.locator('body[data-ready=true]').waitFor();
    expect(await page.locator('h1').textContent()).toBe('# docs');
    // No thread is open yet: its pane stays hidden (the `hidden` attribute must win over the pane's stylesheet).
    expect(await page.locator('#thread').isVisible()).toBe(false);

    // Knobs: short jobs that end with a pull request.
    await page.locator('#duration').evaluate((input: { value: string; dispatchEvent(event: Event): boolean }) => {
      input.value = '1';
      input.dispatchEvent(new Event('change'));
    });
    await page.locator('#knob-note').getByText('New jobs run for 1 s').waitFor();
    await page.locator('input[name=end][value=failed]').check();
    await page.locator('input[name=end][value=pull_request]').check();
    await page.locator('#knob-note').getByText('ends with a pull request').waitFor();

    await type('#text', '/agent Document the rate-limit headers on the <webhooks> page');
    const root = page.locator('#messages .msg.bot').filter({ hasText: 'asked the Mintlify agent' });
    await root.waitFor();
    await expect.poll(() => root.textContent()).toContain('Document the rate-limit headers on the <webhooks> page');

    // The outcome arrives in the thread; the root message is updated in place.
    await root.locator('.thread-link').click({ timeout: 15_000 });
    const prLink = page.locator('#thread-messages a[href^="https://github.com/acme/docs/pull/"]').first();
    await prLink.waitFor({ timeout: 15_000 });
    // The root is the job's plan card: its phases as tasks, all done, and the pull request's button.
    const card = root.locator('.block.plan');
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain('Pull request opened');
    expect(await card.locator('.plan-title').textContent()).toBe('Mintlify agent job');
    expect(await card.locator('.task.complete').count()).toBe(3);
    await root.getByRole('link', { name: 'Open pull request' }).waitFor();
    expect(isPng(await root.screenshot({ path: screenshotPath('plan-card') }))).toBe(true);

    // A follow-up in the thread: 👀 then ✅ on the reply, then the PR is updated.
    await type('#thread-text', 'Also add an example response with the headers');
    const reply = page.locator('#thread-messages .msg').filter({ hasText: 'Also add an example' });
    await reply.locator('.reaction').getByText('✅').waitFor({ timeout: 10_000 });
    await page.locator('#thread-messages').getByText('updated the pull request').waitFor({ timeout: 15_000 });

    // /visitors: a private report with buttons; Next → replaces it in place.
    await type('#text', '/visitors 30d top 5');
    const report = page.locator('#messages .msg.ephemeral').filter({ hasText: 'Unique visitors' });
    await report.waitFor({ timeout: 10_000 });
    await expect.poll(() => report.textContent()).toContain('Only visible to you');
    await report.getByText('Rows 1–5').waitFor();
    await report.getByRole('button', { name: 'Next →' }).click();
    await report.getByText('Rows 6–10').waitFor({ timeout: 10_000 });
    await report.getByRole('button', { name: '← Previous' }).waitFor();
    expect(await page.locator('#messages .msg.ephemeral').count()).toBe(1);

    // Download CSV: the app uploads the export; the page links the file, which downloads as CSV.
    await report.getByRole('button', { name: 'Download CSV' }).click();
    const exported = page.locator('#messages .msg').filter({ hasText: 'CSV in the thread' });
    // A message without blocks (its text only) flows as one paragraph: the mention sits in the line, not in a column.
    expect(await gapBeforeMention(exported)).toBeLessThan(4);
    await exported.locator('.thread-link').click({ timeout: 15_000 });
    const file = page.locator('#thread-messages a.file[download$=".csv"]').first();
    await file.waitFor({ timeout: 15_000 });
    const csv = await page.request.get(new URL((await file.getAttribute('href')) ?? '', url).href);
    expect(csv.headers()['content-type']).toContain('text/csv');
    expect((await csv.text()).split('\n')[0]).toMatch(/path/i);

    // A chart: a PNG the app uploads to the person's DM with the bot, shown as an image.
    await type('#text', '/visitors 30d chart');
    const chart = page.locator('#messages .msg img[src^="/files/"]').first();
    await chart.waitFor({ timeout: 15_000 });
    await expect
      .poll(() =>
        chart.evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth),
      )
      .toBeGreaterThan(100);

    // A command the app does not have gets Slack's own answer.
    await type('#text', '/nope');
    await page.locator('#error').getByText('/nope is not a valid command').waitFor();
    await page.locator('#text').fill('');

    // The screenshot shows the agent's thread next to the channel.
    await root.locator('.thread-link').click();
    await prLink.waitFor();
    expect(isPng(await page.screenshot({ path: screenshotPath('playground') }))).toBe(true);
  }, 90_000);

  it('turns an /insights row into an agent job: Draft a fix, its modal, the plan card of its job, 👎 as a follow-up', async () => {
    await page.goto(url);
    await page.locator('body[data-ready=true]').waitFor();
    await type('#text', '/insights feedback 30d top 3');
    const report = page.locator('#messages .msg').filter({ has: page.getByRole('button', { name: 'Draft a fix' }) });
    await report.first().waitFor({ timeout: 15_000 });
    expect(await report.first().textContent()).toMatch(/feedback/i);

    // Draft a fix opens the app's modal with the instruction prepared from the evidence; submitting starts the job.
    await report.first().getByRole('button', { name: 'Draft a fix' }).first().click();
    const modal = page.locator('#modal');
    await modal.getByRole('heading', { name: 'Draft a fix' }).waitFor({ timeout: 10_000 });
    await modal.getByText('Evidence from readers').waitFor();
    const instruction = modal.locator('textarea');
    expect((await instruction.inputValue()).length).toBeGreaterThan(20);
    await modal.getByRole('button', { name: 'Start job' }).click();
    await modal.waitFor({ state: 'hidden', timeout: 10_000 });

    const card = page.locator('#messages .msg.bot .block.plan').last();
    await card.waitFor({ timeout: 15_000 });
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('Pull request opened');
    // The picture: the report with its buttons, then the job's card (a taller window holds both).
    await page.setViewportSize({ width: 1440, height: 1080 });
    await report.first().evaluate((message: { scrollIntoView(options: { block: string }): void }) => {
      message.scrollIntoView({ block: 'start' });
    });
    expect(isPng(await page.screenshot({ path: screenshotPath('insights') }))).toBe(true);
    await page.setViewportSize({ width: 1440, height: 900 });

    // 👎 under the outcome asks what went wrong; the answer goes to the job as a follow-up, and the card shows it.
    const root = page
      .locator('#messages .msg.bot')
      .filter({ has: page.locator('.block.plan') })
      .last();
    await root.locator('.thread-link').click({ timeout: 15_000 });
    const outcome = page.locator('#thread-messages .msg').filter({ hasText: 'opened a pull request' });
    await outcome.getByRole('button', { name: 'Something went wrong: tell the agent' }).click({ timeout: 15_000 });
    await modal.getByRole('heading', { name: 'What went wrong?' }).waitFor({ timeout: 10_000 });
    await modal.locator('textarea').fill('Also link the changelog from the quickstart');
    await modal.getByRole('button', { name: 'Send as follow-up' }).click();
    await modal.waitFor({ state: 'hidden', timeout: 10_000 });
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('Follow-up applied');
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('Pull request updated');
  }, 90_000);

  it('serves the Messages tab of an agent_view app: its prompts, a DM that starts a job with its plan card', async () => {
    await page.goto(url);
    await page.locator('body[data-ready=true]').waitFor();
    await page.locator('#messages-tab').click();
    await page.locator('h1').getByText('Mintlify · Messages').waitFor();
    await page.locator('#prompts .prompt').first().waitFor({ timeout: 10_000 });

    await type('#text', 'Document the pagination parameters of the list endpoints');
    const asked = page.locator('#messages .msg').filter({ hasText: 'Document the pagination parameters' });
    await asked.locator('.thread-link').click({ timeout: 15_000 });
    const card = page.locator('#thread-messages .block.plan');
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('Pull request opened');
    // Only the DM is in the tab: the channel's jobs are not.
    expect(await page.locator('#messages .msg').filter({ hasText: 'rate-limit headers' }).count()).toBe(0);
    expect(isPng(await page.screenshot({ path: screenshotPath('messages-tab') }))).toBe(true);

    await page.locator('#channel-name').click();
    await page.locator('h1').getByText('# docs').waitFor();
  }, 60_000);

  it('stops a job from its thread with Slack’s Stop button while its session is processing', async () => {
    await page.goto(url);
    await page.locator('body[data-ready=true]').waitFor();
    await api('/api/knobs', { jobDurationSec: 60 });
    await type('#text', '/agent Rewrite the FAQ page');
    const root = page.locator('#messages .msg.bot').filter({ hasText: 'Rewrite the FAQ page' });
    await root.locator('.block.plan').waitFor({ timeout: 15_000 });
    await root.hover();
    await root.locator('.reply-action').click();
    await page.locator('#session').getByText('processing').waitFor({ timeout: 15_000 });
    await page.locator('#stop-session').click();
    await page.locator('#thread-messages').getByText('Stopped by').first().waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('#stop-session').isVisible(), { timeout: 10_000 }).toBe(false);
    await api('/api/knobs', { jobDurationSec: 1 });
  }, 60_000);

  it('answers /agent help, as the empty page suggests, privately in the channel', async () => {
    await page.goto(url);
    await page.locator('body[data-ready=true]').waitFor();
    await type('#text', '/agent help');
    const usage = page.locator('#messages .msg.ephemeral').filter({ hasText: 'Start a Mintlify agent job' });
    await usage.waitFor({ timeout: 10_000 });
    expect(await usage.textContent()).toContain('/agent <instruction>');
    expect(await page.locator('#error').textContent()).toBe('');
  });
});
