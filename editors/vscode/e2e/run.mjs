// End-to-end test of the extension in a real VS Code: code-server 4.100.3
// (VS Code 1.100.3) driven through headless Chromium with playwright-core.
// CI runs it (.ci/run). By hand: set it up once with e2e/setup.sh, build
// the .vsix (npm run package), then:
//
//   node e2e/run.mjs
//
// It builds agentls, serves a scripted fake OpenAI-compatible model,
// installs the .vsix into a fresh code-server, opens a workspace, and
// through the command palette: asks the agent (the edit lands in the open
// editor, unsaved; the status bar shows the turn), runs a command (the
// server's agentls/saveDocuments makes the extension save the buffer
// first: the disk has the edit), undoes the agent's edit, runs a job and
// shows its output; answers approvals with the notification's "Run" and
// "Skip" buttons; applies a reply pasted into an untitled document (one
// undo reverts it); applies a Markdown reply with the code action "Apply
// agent reply" and reverts it with "Undo agent turn N" (Source Action...);
// opens a chat, sends it, and sees the reply stream in; finds "Agent: …"
// in the light bulb's menu on an AI! comment; in review mode (set in
// .vscode/settings.json) sees the edit wait with an "Accept agent edit"
// code action and accepts it with Review Accept…; and cancels a turn from
// the status bar. About 55 s on 2 cores. Environment: AGENTLS_E2E_PREFIX
// (where setup.sh installed, default ~/.cache/agentls-e2e), CHROMIUM
// (default /usr/bin/chromium), E2E_HEADED=1 to watch, E2E_KEEP=1 to keep
// the temporary folders.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const started = Date.now();
const here = path.dirname(fileURLToPath(import.meta.url));
const extDir = path.resolve(here, '..');
const repo = path.resolve(extDir, '..', '..');
const prefix = process.env.AGENTLS_E2E_PREFIX ?? path.join(os.homedir(), '.cache', 'agentls-e2e');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const codeServer = path.join(prefix, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const require = createRequire(path.join(prefix, 'package.json'));

function log(msg) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
}

function fail(msg) {
  throw new Error(msg);
}

async function until(what, fn, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) {
        return last;
      }
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  fail(`timed out waiting for ${what} (last: ${last})`);
}

// --- The fake model: OpenAI's streaming wire format, replies in order. ---

const replies = [
  {
    delayMs: 400,
    text: 'Renaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n',
  },
  { delayMs: 0, text: 'Renamed Config to Settings.' },
  { delayMs: 0, text: 'Looking.\n```shell\ncat a.go\n```\n' },
  { delayMs: 0, text: 'Saw the file.' },
  // Approvals: commands not on the allowlist ask through a notification.
  { delayMs: 0, text: 'Making it.\n```shell\ntouch made.txt\n```\n' },
  { delayMs: 0, text: 'Made it.' },
  { delayMs: 0, text: 'Making another.\n```shell\ntouch skipped.txt\n```\n' },
  { delayMs: 0, text: 'It was skipped.' },
  // The chat's reply.
  { delayMs: 300, text: 'Hello from the e2e agent.' },
  // Review mode: the edit waits as a pending hunk.
  {
    delayMs: 0,
    text: 'Renaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Options struct{}\n>>>>>>> UPDATED\n```\n',
  },
  { delayMs: 0, text: 'Renamed Config to Options.' },
  { delayMs: 30000, text: 'A slow reply, '.repeat(20) },
];
const requests = [];

function startModel() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      if (!req.url.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body);
      requests.push(parsed);
      const reply = replies[requests.length - 1] ?? { delayMs: 0, text: 'Nothing more.' };
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      const event = (delta, finish = null) =>
        res.write(
          `data: ${JSON.stringify({
            id: 'chatcmpl-e2e',
            object: 'chat.completion.chunk',
            created: 0,
            model: parsed.model,
            choices: [{ index: 0, delta, finish_reason: finish }],
          })}\n\n`,
        );
      event({ role: 'assistant', content: '' });
      const chunks = reply.text.match(/[\s\S]{1,16}/g) ?? [];
      for (const c of chunks) {
        if (res.destroyed) {
          return;
        }
        if (reply.delayMs) {
          await new Promise((r) => setTimeout(r, reply.delayMs / chunks.length));
        }
        event({ content: c });
      }
      event({}, 'stop');
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function freePort() {
  return new Promise((resolve) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// --- VS Code UI through the command palette. ---

async function palette(page, text) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${text}`);
  // The entry named exactly so, not a recently used or fuzzily matched other one.
  const row = page.locator('.quick-input-list .monaco-list-row').filter({
    has: page.locator('.label-name', { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }),
  });
  await until(`palette entry "${text}"`, async () => (await row.count()) > 0);
  await row.first().click();
}

async function inputBox(page, text) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(text);
  await page.keyboard.press('Enter');
}

async function openFile(page, name) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(name);
  await until(`quick open "${name}"`, async () =>
    (await page.locator('.quick-input-list .monaco-list-row').first().innerText()).includes(name),
  );
  await page.keyboard.press('Enter');
  await page.locator(`.tab[aria-label^="${name}"]`).first().waitFor({ state: 'visible' });
}

async function editorText(page) {
  return (await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText()).replace(
    /\u00a0/g,
    ' ',
  );
}

// clickNotificationButton clicks a button of the notification toast whose
// message holds text: how VS Code shows window/showMessageRequest.
async function clickNotificationButton(page, text, button) {
  const toast = page.locator('.notification-toast', { hasText: text }).first();
  await toast.waitFor({ state: 'visible', timeout: 15000 });
  await toast.getByRole('button', { name: button, exact: true }).click();
  await toast.waitFor({ state: 'hidden', timeout: 5000 });
}

async function goToLine(page, line) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`:${line}`);
  // Enter before the widget has read the line number is lost (seen under
  // load): wait until it offers to go to that line.
  await page.locator(`.quick-input-widget input[aria-label^="Go to line ${line}"]`).waitFor();
  await input.press('Enter');
  await input.waitFor({ state: 'hidden' });
}

// codeActionMenu opens the code action menu of the cursor's line from its
// light bulb and returns the menu's text; the menu is closed again.
//
// A menu holds the actions of the moment it opened: what agentls offers
// can lag (a pending edit's diagnostic still on its way under load), so a
// menu without the action is closed and the light bulb asked again.
async function codeActionMenu(page, want) {
  const bulb = page.locator('.editor-group-container.active .lightBulbWidget');
  const menu = page.locator('.action-widget');
  let text = '';
  await until(`"${want}" in the code action menu`, async () => {
    await until('the light bulb', async () => (await bulb.count()) > 0 && (await bulb.first().isVisible()), 15000);
    await bulb.first().click();
    await menu.first().waitFor({ state: 'visible', timeout: 10000 });
    const found = await until(`"${want}" in this menu`, async () => {
      text = await menu.first().innerText();
      return text.includes(want);
    }, 3000).then(() => true, () => false);
    if (!found) {
      await page.keyboard.press('Escape');
      await menu.first().waitFor({ state: 'hidden', timeout: 5000 });
    }
    return found;
  }, 30000).catch((err) => fail(`${err.message}; the menu has:\n${text}`));
  await page.keyboard.press('Escape');
  await menu.first().waitFor({ state: 'hidden', timeout: 5000 });
  return text;
}

// pickSourceAction opens VS Code's "Source Action..." menu at the cursor
// (agentls's reply, undo and redo actions are of kind "source", which
// the light bulb leaves out) and picks the first entry matching want (a
// string or a RegExp), as a user clicks it; it returns the entry's text.
async function pickSourceAction(page, want) {
  const menu = page.locator('.action-widget').first();
  const matches = (text) => (typeof want === 'string' ? text.includes(want) : want.test(text));
  const rows = menu.locator('.monaco-list-row.action');
  const labels = async () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  // What the server offers can lag what the editor shows (an edit is
  // recorded once the editor echoed it): open the menu again until the
  // entry is there.
  await until(`${want} in the Source Action menu`, async () => {
    await palette(page, 'Source Action...');
    const shown = await menu
      .waitFor({ state: 'visible', timeout: 3000 })
      .then(() => until('the menu\'s entries', async () => (await labels()).some(matches), 3000))
      .catch(() => false);
    if (!shown) {
      await page.keyboard.press('Escape');
    }
    return shown;
  }, 30000);
  // By keyboard, as the menu takes it (it blocks the pointer while it
  // opens): down to the entry, then Enter.
  const focused = menu.locator('.monaco-list-row.action.focused');
  for (let i = 0; !matches((await focused.getAttribute('aria-label')) ?? ''); i++) {
    if (i > (await rows.count())) {
      fail(`could not move to ${want} in the Source Action menu:\n${await menu.innerText()}`);
    }
    await page.keyboard.press('ArrowDown');
  }
  const title = await focused.getAttribute('aria-label');
  await page.keyboard.press('Enter');
  await menu.waitFor({ state: 'hidden', timeout: 5000 });
  return title;
}

// agentlsLog is the text of the agentls output channel as VS Code logs
// it to disk (user-data/logs/<session>/exthost*/output_logging_*/N-agentls.log):
// the panel shows only the lines in view.
function agentlsLog(userData) {
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        walk(p);
      } else if (/^\d+-agentls\.log$/.test(e.name)) {
        found.push(p);
      }
    }
  };
  walk(path.join(userData, 'logs'));
  return found.map((f) => readFileSync(f, 'utf8')).join('\n');
}

// The extension's status-bar item (VS Code prefixes the extension id),
// read in one step: it comes and goes.
async function statusItemText(page) {
  return page.evaluate(() => {
    const item = document.getElementById('agentls.agentls.agentls.status');
    return item && item.offsetParent !== null ? item.innerText : '';
  });
}

// --- The run. ---

async function main() {
  if (!existsSync(codeServer)) {
    fail(`no code-server in ${prefix}: run e2e/setup.sh`);
  }
  const vsix = readdirSync(extDir).find((f) => f.endsWith('.vsix'));
  if (!vsix) {
    fail('no .vsix in editors/vscode: run npm run package');
  }
  const { chromium } = require('playwright-core');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agentls-e2e-'));
  const children = [];
  let browser;
  let model;
  let page;
  let csLog = '';
  try {
    const bin = path.join(tmp, 'bin');
    mkdirSync(bin);
    execFileSync('go', ['build', '-o', path.join(bin, 'agentls'), './cmd/agentls'], { cwd: repo, stdio: 'inherit' });
    log('built agentls');

    const ws = path.join(tmp, 'ws');
    mkdirSync(path.join(ws, '.git'), { recursive: true });
    writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const original = 'package p\n\n// Config holds settings.\ntype Config struct{}\n';
    writeFileSync(path.join(ws, 'a.go'), original);
    writeFileSync(path.join(ws, 'b.go'), 'package p\n\n// AI! add a String method to Config\nfunc f() {}\n');
    writeFileSync(path.join(ws, 'AGENTS.md'), 'Keep names short.\n');
    // A reply pasted into a Markdown file, applied with its code action.
    writeFileSync(
      path.join(ws, 'reply.md'),
      'The change:\n\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Picked struct{}\n>>>>>>> UPDATED\n```\n',
    );

    const userData = path.join(tmp, 'user-data');
    const extensions = path.join(tmp, 'extensions');
    mkdirSync(path.join(userData, 'User'), { recursive: true });
    writeFileSync(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify({
        'agentls.path': path.join(bin, 'agentls'),
        'agentls.maxSteps': 5,
        // Lets the agent's `cat` run without asking: the settings reach the server.
        'agentls.commandAllowlist': ['cat'],
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'telemetry.telemetryLevel': 'off',
        'files.autoSave': 'off',
        'window.commandCenter': false,
        // The LSP messages in the output channel's log file: the run waits
        // on them (a settings change reaching the server).
        'agentls.trace.server': 'messages',
      }),
    );
    const csArgs = ['--user-data-dir', userData, '--extensions-dir', extensions, '--config', path.join(tmp, 'code-server.yaml')];
    writeFileSync(path.join(tmp, 'code-server.yaml'), 'auth: none\n');
    // code-server keeps data of its own under XDG_DATA_HOME: not in $HOME.
    const xdg = { ...process.env, XDG_DATA_HOME: path.join(tmp, 'data'), XDG_CONFIG_HOME: path.join(tmp, 'config') };
    execFileSync('node', [codeServer, ...csArgs, '--install-extension', path.join(extDir, vsix)], { stdio: 'inherit', env: xdg });
    log(`installed ${vsix}`);

    model = await startModel();
    const port = await freePort();
    const env = {
      ...xdg,
      OPENAI_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`,
      AGENTLS_MODEL: 'e2e-model',
      OPENAI_API_KEY: 'e2e-key',
      // The scripted model is a capable one's: on this machine the
      // prompt setting's "auto" would send the compact prompt.
      AGENTLS_PROMPT: 'full',
      XDG_STATE_HOME: path.join(tmp, 'state'),
    };
    const cs = spawn(
      'node',
      [codeServer, ...csArgs, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-workspace-trust', '--disable-update-check', ws],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(cs);
    cs.stdout.on('data', (d) => (csLog += d));
    cs.stderr.on('data', (d) => (csLog += d));
    await until('code-server', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return res.ok;
    });
    log('code-server is up');

    browser = await chromium.launch({ executablePath: chromiumPath, headless: !process.env.E2E_HEADED, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
    log('workbench loaded');

    await openFile(page, 'a.go');
    await until('the extension and its server', async () => {
      await palette(page, 'Agent: Show Output');
      return (await page.locator('#workbench\\.parts\\.panel').innerText()).includes('msg=initialize');
    }, 60000);
    log('agentls output channel open');

    // Ask: the edit lands in the open editor, unsaved; the status bar shows the turn.
    await palette(page, 'Agent: Ask…');
    await inputBox(page, 'rename Config to Settings in @b.go');
    await until('the status-bar item for the turn', async () => (await statusItemText(page)).includes('agent turn 1'), 15000);
    log('status bar shows the turn');
    await until('the edit in the editor', async () => (await editorText(page)).includes('type Settings struct{}'));
    await until('the turn to end', async () => requests.length === 2 && !(await statusItemText(page)).includes('agent turn 1'));
    if (!JSON.stringify(requests[0].messages).includes('rename Config to Settings')) {
      fail('the model was not asked the prompt');
    }
    if (readFileSync(path.join(ws, 'a.go'), 'utf8') !== original) {
      fail('the agent edit reached the disk before a save');
    }
    log('ask: edited in the buffer, not on disk');
    // The project's rules and the prompt's mention reached the model, and
    // the output channel lists them under the turn.
    if (!JSON.stringify(requests[0].messages).includes('Keep names short.') || !JSON.stringify(requests[0].messages).includes('AI! add a String method')) {
      fail('the rules or the mentioned b.go did not reach the model');
    }
    await until('the rules and the mention in the output channel', async () => {
      const out = agentlsLog(userData);
      return out.includes('rules: AGENTS.md') && out.includes('mention @b.go');
    });
    log('rules and mentions: sent, and listed in the output channel');

    // The agent runs a command: agentls/saveDocuments saves the buffer first.
    await palette(page, 'Agent: Ask…');
    await inputBox(page, 'show me a.go');
    await until('a.go saved by agentls/saveDocuments', async () =>
      readFileSync(path.join(ws, 'a.go'), 'utf8').includes('type Settings struct{}'),
    );
    await until('the command result to reach the model', async () => requests.length === 4);
    if (!JSON.stringify(requests[3].messages).includes('type Settings struct{}')) {
      fail('the agent\'s command did not see the saved buffer');
    }
    log('saveDocuments: the buffer was saved before the agent\'s command');

    // Undo the agent's edit.
    await palette(page, 'Agent: Undo');
    await until('the undo in the editor', async () => (await editorText(page)).includes('type Config struct{}'));
    log('undo: reverted');

    // A job, and its output as a read-only document.
    await palette(page, 'Agent: Run Command…');
    await inputBox(page, 'echo e2e-job-output');
    await page.waitForTimeout(1000);
    await palette(page, 'Agent: Job Output…');
    await until('the job in the quick pick', async () =>
      (await page.locator('.quick-input-list .monaco-list-row').first().innerText()).includes('echo e2e-job-output'),
    );
    await page.keyboard.press('Enter');
    await until('the job output document', async () => (await editorText(page)).includes('e2e-job-output'));
    await page.locator('.tab[aria-label^="job-1.log"]').first().waitFor({ state: 'visible' });
    log('jobs: output shown');

    // An approval: the agent's `touch` is not on the allowlist, so VS Code
    // shows the server's window/showMessageRequest as a notification; Run.
    await openFile(page, 'a.go');
    await palette(page, 'Agent: Ask…');
    await inputBox(page, 'make a file');
    await clickNotificationButton(page, 'touch made.txt', 'Run').catch((err) =>
      fail(`the approval notification for \`touch made.txt\` with a "Run" button: ${err.message}`),
    );
    await until('made.txt, created after "Run"', async () => existsSync(path.join(ws, 'made.txt')));
    await until('the approved turn to end', async () => requests.length === 6);
    log('approval: "Run" in the notification ran the command');

    // And Skip: the command does not run, the model hears so.
    await palette(page, 'Agent: Ask…');
    await inputBox(page, 'make another file');
    await clickNotificationButton(page, 'touch skipped.txt', 'Skip').catch((err) =>
      fail(`the approval notification for \`touch skipped.txt\` with a "Skip" button: ${err.message}`),
    );
    await until('the skipped turn to end', async () => requests.length === 8);
    if (existsSync(path.join(ws, 'skipped.txt'))) {
      fail('skipped.txt was created although "Skip" was clicked');
    }
    log('approval: "Skip" in the notification skipped the command');

    // Apply Reply: a reply pasted into an untitled document edits a.go's
    // buffer; one undo in a.go reverts it.
    await palette(page, 'File: New Untitled Text File');
    await page.locator('.tab[aria-label^="Untitled-"]').first().waitFor({ state: 'visible' });
    await page.keyboard.insertText(
      'Here is the change:\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Applied struct{}\n>>>>>>> UPDATED\n```\n',
    );
    await until('the pasted reply in the untitled editor', async () => (await editorText(page)).includes('>>>>>>> UPDATED'));
    await palette(page, 'Agent: Apply Reply');
    await openFile(page, 'a.go');
    await until('the applied reply in a.go\'s buffer', async () => (await editorText(page)).includes('type Applied struct{}'));
    await page.keyboard.press('Control+z');
    await until('one undo to revert the applied reply', async () => (await editorText(page)).includes('type Config struct{}'));
    log('apply reply: from an untitled document into a.go; one undo reverted it');

    // The same through code actions (Source Action...): in a Markdown
    // reply "Apply agent reply (1 edit in 1 file)"; in a.go, "Undo agent
    // turn N (1 file)" reverts that turn.
    await openFile(page, 'reply.md');
    await goToLine(page, 5);
    await pickSourceAction(page, 'Apply agent reply (1 edit in 1 file)');
    await openFile(page, 'a.go');
    await until('the reply applied by its code action in a.go', async () => (await editorText(page)).includes('type Picked struct{}'));
    await goToLine(page, 4);
    const undone = await pickSourceAction(page, /^Undo agent turn \d+ \(1 file\)/);
    await until(`"${undone}" to revert a.go`, async () => (await editorText(page)).includes('type Config struct{}'));
    // The cursor leaves line 4, so that going back to it below asks for
    // its code actions again (VS Code asks when the cursor moves).
    await goToLine(page, 1);
    log(`code actions: "Apply agent reply" applied reply.md, "${undone}" reverted it`);

    // Review mode, from the workspace's settings.json, for the review step
    // below: VS Code notices the file within a second or two, and the
    // extension sends the change to the server (the chat does not mind).
    const changes = () => agentlsLog(userData).split("'workspace/didChangeConfiguration'").length - 1;
    const changesBefore = changes();
    mkdirSync(path.join(ws, '.vscode'), { recursive: true });
    writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'agentls.applyMode': 'review' }));

    // The chat: Open Chat… opens .agentls/chat/e2e.md; Send Chat streams
    // the reply into it under "## Agent".
    await palette(page, 'Agent: Open Chat…');
    await inputBox(page, 'e2e');
    await page
      .locator('.tab[aria-label^="e2e.md"]')
      .first()
      .waitFor({ state: 'visible', timeout: 15000 })
      .catch(() => fail('"Agent: Open Chat…" did not open .agentls/chat/e2e.md'));
    await until('the chat template', async () => (await editorText(page)).includes('## You'));
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('say hello\n');
    await palette(page, 'Agent: Send Chat');
    await until('the chat reply under "## Agent"', async () => {
      const t = await editorText(page);
      return /## Agent[\s\S]*Hello from the e2e agent\./.test(t);
    });
    if (!JSON.stringify(requests[8].messages).includes('say hello')) {
      fail('the chat message did not reach the model');
    }
    log('chat: the reply streamed into the chat document');

    // Code actions: an AI! comment offers "Agent: …" in the light bulb's menu.
    await openFile(page, 'b.go');
    await goToLine(page, 3);
    await codeActionMenu(page, 'Agent: add a String method to Config');
    log('code actions: the light bulb offers "Agent: …" on an AI! comment');

    // Review: Ask → the edit is pending (a code action accepts it); Review
    // Accept… on all pending edits applies it.
    await until('workspace/didChangeConfiguration after .vscode/settings.json changed', async () => changes() > changesBefore, 15000);
    await openFile(page, 'a.go');
    await palette(page, 'Agent: Ask…');
    await inputBox(page, 'rename Config to Options');
    await until('the review turn to end', async () => requests.length === 11 && !/agent turn/.test(await statusItemText(page)));
    if (!(await editorText(page)).includes('type Config struct{}')) {
      fail('applyMode "review" in .vscode/settings.json did not reach the server: the edit was applied at once');
    }
    await goToLine(page, 4);
    await codeActionMenu(page, 'Accept agent edit');
    await palette(page, 'Agent: Review Accept…');
    await until('the review scope pick', async () =>
      (await page.locator('.quick-input-list').innerText()).includes('All pending edits'),
    );
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'All pending edits' }).first().click();
    await until('the accepted edit in a.go', async () => (await editorText(page)).includes('type Options struct{}'));
    log('review: the edit waited, a code action offered it, Review Accept… applied it');

    // A click on the status-bar item cancels the running turn.
    await palette(page, 'Agent: Ask…');
    await inputBox(page, 'take your time');
    await until('the slow turn in the status bar', async () => /agent turn \d+/.test(await statusItemText(page)));
    await page.locator('[id="agentls.agentls.agentls.status"]').click();
    // Once no work runs, the item shows the session's tokens
    // (agentls.status) instead of the turn.
    await until('the turn to be cancelled', async () => {
      const text = await statusItemText(page);
      return !/agent turn \d+/.test(text) && /tokens/.test(text);
    }, 15000);
    log(`status bar: a click cancelled the turn; the item shows "${await statusItemText(page)}"`);

    const output = await page.locator('#workbench\\.parts\\.panel').innerText();
    if (!output.includes('agentls')) {
      fail(`the output channel shows nothing of agentls:\n${output}`);
    }
    log(`OK in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
    const shot = path.join(os.tmpdir(), 'agentls-e2e-failure.png');
    await page?.screenshot({ path: shot }).then(() => console.error(`screenshot: ${shot}`), () => {});
    console.error(`code-server log (end):\n${csLog.slice(-3000)}`);
  } finally {
    await browser?.close();
    model?.close();
    for (const c of children) {
      c.kill();
    }
    if (!process.env.E2E_KEEP) {
      rmSync(tmp, { recursive: true, force: true });
    } else {
      log(`kept ${tmp}`);
    }
  }
}

await main();
