// An operator's upgrade in the Temporal Web UI, in Debian's Chromium (headless), for WebUiTest:
// starts the runbook from the Start Workflow form, finds the run in the list and its input decoded
// through the codec endpoint, runs its progress query until it says AWAITING_APPROVAL, sends the
// approve signal, starts the same runbook under another workflow id and sees it fail with the
// refusal naming the change id (WebUiTest checks its type, WrongWorkflowId), then sees the upgrade
// complete. A screenshot after each step; every step prints a line. Selectors are the UI's roles
// and labels (Web UI 2.54), not its CSS.
// Usage: NODE_PATH=<playwright-core's node_modules> node web-ui-upgrade.cjs '<settings as JSON>'
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const settings = JSON.parse(process.argv[2]);
const namespace = 'default';
const workflows = `${settings.ui}/namespaces/${namespace}/workflows`;
let shots = 0;

function step(text) {
  console.log(`${new Date().toISOString()} ${text}`);
}

async function screenshot(page, name) {
  shots += 1;
  const file = path.join(settings.screenshots, `${String(shots).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  step(`  screenshot ${file}`);
}

/** Polls (reloading the page, or with another action) until the locator shows. */
async function until(page, locator, what, timeoutMs, again = () => page.reload()) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await locator.first().waitFor({ state: 'visible', timeout: 3000 });
      return;
    } catch (notYet) {
      if (Date.now() > deadline) throw new Error(`${what} not shown within ${timeoutMs} ms`);
      await again();
    }
  }
}

async function startWorkflow(page, workflowId) {
  await page.goto(workflows);
  await page.getByRole('link', { name: 'Start Workflow' }).click();
  await page.getByRole('textbox', { name: 'Workflow ID' }).fill(workflowId);
  await page.getByRole('textbox', { name: 'Task Queue' }).fill(settings.taskQueue);
  await page.getByRole('textbox', { name: 'Workflow Type' }).fill(settings.workflowType);
  const data = page.getByRole('textbox', { name: 'Data' });
  await data.fill(settings.input);
  // the editor reformats its JSON when it loses focus, which moves the button under a click
  await data.blur();
  await page.getByRole('button', { name: 'Start Workflow' }).click();
  await page.getByText('Workflow started successfully').first().waitFor();
}

/** The run's page, reached from the workflow list as an operator would. */
async function openRun(page, workflowId) {
  await page.goto(workflows);
  const link = page.getByRole('link', { name: workflowId, exact: true });
  const refresh = () => page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await until(page, link, `${workflowId} in the workflow list`, 60000, refresh);
  await link.first().click();
  await page.getByRole('tab', { name: 'Queries' }).waitFor();
}

/** Until the run's status (the badge beside its id) reads {@code status}. */
async function awaitStatus(page, status, timeoutMs) {
  const badge = page.getByRole('main').getByRole('status').filter({ hasText: status });
  await until(page, badge, `status ${status}`, timeoutMs);
}

/** The text of one of the run's read-only JSON panels (Input, Result, Query Result). */
async function panelText(page, name) {
  return page.getByRole('textbox', { name, exact: true }).first().innerText();
}

/** Until the panel shows every text (it shows the raw payloads until the codec answers). */
async function expectText(page, panel, texts, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await panelText(page, panel);
    const missing = texts.filter((t) => !text.includes(t));
    if (!missing.length) return;
    if (Date.now() > deadline) throw new Error(`${panel} does not show ${missing}: ${text}`);
    await page.waitForTimeout(250);
  }
}

async function main() {
  fs.mkdirSync(settings.screenshots, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'web-ui-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 1000 },
    // this machine's network is closed: without these Chromium keeps calling Google's services
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = browser.pages()[0] || (await browser.newPage());
  page.setDefaultTimeout(30000);
  try {
    step(`start ${settings.workflowType} as ${settings.workflowId} from the Start Workflow form`);
    await startWorkflow(page, settings.workflowId);
    await screenshot(page, 'started-from-the-form');

    step('the run in the workflow list, its input decoded through the codec endpoint');
    await openRun(page, settings.workflowId);
    await awaitStatus(page, 'Running', 30000);
    await expectText(page, 'Input', [
      '"requireApproval": true',
      `"targetVersion": "${settings.targetVersion}"`,
    ]);
    await screenshot(page, 'running-input-decoded');

    step('its progress query, decoded, says AWAITING_APPROVAL');
    await page.getByRole('tab', { name: 'Queries' }).click();
    const runQuery = page.getByRole('button', { name: /^(Run|Refresh) Query$/ });
    await runQuery.click();
    const result = page.getByRole('textbox', { name: 'Query Result' });
    const awaiting = result.getByText('AWAITING_APPROVAL');
    await until(page, awaiting, 'phase AWAITING_APPROVAL', 60000, () => runQuery.click());
    await screenshot(page, 'awaiting-approval');

    step(`send the approve signal as ${settings.approver}`);
    await page.getByRole('button', { name: 'More Actions' }).click();
    await page.getByRole('menuitem', { name: 'Send a Signal' }).click();
    const dialog = page.getByRole('dialog');
    // a list of the signals the worker declares, or a text field while the UI does not know them
    const listed = dialog.getByRole('button', { name: 'Select a signal' });
    const typed = dialog.getByRole('textbox', { name: 'Signal name' });
    await listed.or(typed).first().waitFor();
    if (await listed.isVisible()) {
      await listed.click();
      await dialog.getByRole('option', { name: 'approve', exact: true }).click();
    } else {
      await typed.fill('approve');
    }
    const signalData = dialog.getByRole('textbox', { name: 'Data' });
    await signalData.fill(JSON.stringify(settings.approver));
    await signalData.blur();
    await screenshot(page, 'approve-signal');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Workflow signaled').first().waitFor();

    step(`start it again as ${settings.wrongWorkflowId}: refused`);
    await startWorkflow(page, settings.wrongWorkflowId);
    await openRun(page, settings.wrongWorkflowId);
    await awaitStatus(page, 'Failed', 60000);
    await expectText(page, 'Result', [`Start it again with workflow id ${settings.workflowId}`]);
    await screenshot(page, 'other-id-refused');

    step(`${settings.workflowId} completes`);
    await openRun(page, settings.workflowId);
    await awaitStatus(page, 'Completed', 120000);
    await expectText(page, 'Result', [
      '"dryRun": false',
      `"targetVersion": "${settings.targetVersion}"`,
    ]);
    await screenshot(page, 'upgrade-completed');
  } catch (e) {
    await screenshot(page, 'failed').catch(() => {});
    throw e;
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
