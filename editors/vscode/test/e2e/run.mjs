// End-to-end test: installs the packaged extension into a real VS Code workbench
// (code-server), opens a Metal file in headless Chromium and checks that the extension and
// its language server work. In a trusted workspace: activation (language mode and status
// item), bracket colorization, the checker's error in the Problems panel, the hover of a
// library function, the syntax tree and AIR commands, rename across files, "Format
// Document" and format-on-save, settings changes reaching the server,
// and a missing msl.server.path being reported and recovered from. Then, in a second,
// untrusted workspace: activation in Restricted Mode with the compiler off, and the full
// settings sent once trust is granted.
//
// Environment:
//   MSL_VSIX              the .vsix to test (default: the newest *.vsix in editors/vscode)
//   MSL_LSP               an msl-lsp to use through msl.server.path (default: the bundled one)
//   MSL_CODE_SERVER_DIR   where code-server is (or gets) installed (default /tmp/msl-code-server)
//   MSL_CHROMIUM          the Chromium binary (default /usr/bin/chromium)
//   MSL_E2E_KEEP=1        keep the temporary workspace and profile for inspection

import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWriteStream } from 'node:fs';

const here = dirname(fileURLToPath(import.meta.url));
const extRoot = resolve(here, '..', '..');
const artifacts = join(extRoot, 'test-artifacts');
const codeServerDir = resolve(process.env.MSL_CODE_SERVER_DIR || '/tmp/msl-code-server');
const chromiumPath = process.env.MSL_CHROMIUM || '/usr/bin/chromium';
const TOTAL_TIMEOUT_MS = 15 * 60 * 1000;
const FIXTURE_FILE = 'shader.metal';
// a stand-in for Apple's compiler (built by the repository's tests), when given
const STANDIN = process.env.MSL_STANDIN ? resolve(process.env.MSL_STANDIN) : null;

const started = Date.now();
function log(message) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[e2e ${seconds}s] ${message}`);
}

class TestFailure extends Error {}
function fail(message) {
  throw new TestFailure(message);
}

/** Everything to undo at the end, newest first. */
const cleanups = [];
let cleaningUp = false;
async function cleanup() {
  if (cleaningUp) {
    return;
  }
  cleaningUp = true;
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    try {
      await step();
    } catch (e) {
      console.error(`cleanup: ${e?.message ?? e}`);
    }
  }
}

/** Stops a whole process group: TERM, then KILL if it lingers. */
async function killGroup(pid, name) {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) {
    return;
  }
  log(`stopping ${name} (process group ${pid})`);
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 50 && alive(); i++) {
    await sleep(100);
  }
  if (alive()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Runs a command in its own process group and waits for it, killing the group on timeout.
 * Output goes to `logFile` and is returned.
 */
function runGroup(command, args, { timeoutMs, logFile, env, cwd }) {
  return new Promise((resolvePromise, reject) => {
    const out = createWriteStream(logFile, { flags: 'a' });
    let text = '';
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env, cwd });
    const collect = (chunk) => {
      text += chunk;
      out.write(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      void killGroup(child.pid, command).then(() =>
        reject(new TestFailure(`${command} ${args.join(' ')} did not finish within ${timeoutMs / 1000}s; see ${logFile}`)),
      );
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      out.end();
      // nothing it started may outlive it
      void killGroup(child.pid, command).then(() => resolvePromise({ code, text }));
    });
  });
}

/** Files below `dir` (recursively) that `keep` accepts. */
function findFiles(dir, keep) {
  if (!existsSync(dir)) {
    return [];
  }
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((f) => keep(f) && statSync(f).isFile());
}

function newestVsix() {
  if (process.env.MSL_VSIX) {
    const file = resolve(process.env.MSL_VSIX);
    if (!existsSync(file)) {
      fail(`MSL_VSIX=${file} does not exist`);
    }
    return file;
  }
  const found = readdirSync(extRoot)
    .filter((f) => f.endsWith('.vsix'))
    .map((f) => join(extRoot, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (found.length === 0) {
    fail(`no .vsix in ${extRoot}: run "npm run package" first (or set MSL_VSIX)`);
  }
  return found[0];
}

function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

async function waitForHttp(url, timeoutMs, isAlive) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!isAlive()) {
      fail('code-server exited while starting; see test-artifacts/code-server.log');
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) {
        return;
      }
      last = `HTTP ${response.status}`;
    } catch (e) {
      last = e?.cause?.code ?? e?.message ?? String(e);
    }
    await sleep(250);
  }
  fail(`code-server did not answer on ${url} within ${timeoutMs / 1000}s (${last})`);
}

/** Polls `probe` until it returns a truthy value; fails with `what` after the timeout. */
async function eventually(what, timeoutMs, probe) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) {
        return value;
      }
    } catch (e) {
      lastError = e;
    }
    await sleep(250);
  }
  fail(`${what} (waited ${timeoutMs / 1000}s${lastError ? `; last error: ${lastError.message}` : ''})`);
}

async function main() {
  mkdirSync(artifacts, { recursive: true });
  for (const f of readdirSync(artifacts)) {
    rmSync(join(artifacts, f), { recursive: true, force: true });
  }
  const vsix = newestVsix();
  log(`testing ${vsix}`);

  // 1. code-server, installed once per machine
  const installLog = join(artifacts, 'install-code-server.log');
  log(`making sure code-server is installed in ${codeServerDir}`);
  const install = await runGroup('sh', [join(here, 'install-code-server.sh'), codeServerDir], {
    timeoutMs: 20 * 60 * 1000,
    logFile: installLog,
    env: process.env,
  });
  if (install.code !== 0) {
    fail(`installing code-server failed (exit ${install.code}); see ${installLog}`);
  }
  const entry = join(codeServerDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!existsSync(entry)) {
    fail(`${entry} is missing after the install`);
  }
  if (!existsSync(chromiumPath)) {
    fail(`Chromium not found at ${chromiumPath} (set MSL_CHROMIUM)`);
  }

  // 2. a fresh profile, extensions directory and workspace
  const temp = mkdtempSync(join(tmpdir(), 'msl-e2e-'));
  cleanups.push(async () => {
    if (process.env.MSL_E2E_KEEP) {
      log(`kept ${temp}`);
    } else {
      rmSync(temp, { recursive: true, force: true });
    }
  });
  const userData = join(temp, 'user-data');
  const extensionsDir = join(temp, 'extensions');
  const workspace = join(temp, 'workspace');
  const home = join(temp, 'home');
  for (const d of [userData, extensionsDir, home, join(userData, 'User')]) {
    mkdirSync(d, { recursive: true });
  }
  cpSync(join(here, 'fixture'), workspace, { recursive: true });

  const settings = {
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'chat.commandCenter.enabled': false,
    'editor.hover.delay': 200,
    'msl.trace.server': 'messages',
  };
  // msl.server.path is a machine setting: in code-server, as in any remote window, VS Code
  // reads it from the remote machine's settings (Machine/settings.json), not the user's
  const machineSettings = {};
  if (process.env.MSL_LSP) {
    machineSettings['msl.server.path'] = resolve(process.env.MSL_LSP);
    log(`using msl-lsp from MSL_LSP: ${machineSettings['msl.server.path']}`);
  } else {
    log('using the msl-lsp bundled in the .vsix');
  }
  // with a stand-in for Apple's compiler (MSL_STANDIN, built by the repository's tests),
  // Show AIR must open the IR it writes; without one, the server's error is shown
  if (STANDIN) {
    const tools = join(temp, 'compiler tools');
    mkdirSync(tools, { recursive: true });
    const metal = join(tools, 'metal');
    copyFileSync(STANDIN, metal);
    chmodSync(metal, 0o755);
    const air = [
      "; ModuleID = '{input}'",
      'source_filename = "{input_ir}"',
      'target triple = "air64_v27-apple-macosx15.0.0"',
      '',
      'define void @saturate() local_unnamed_addr #0 {',
      '  ret void',
      '}',
      '',
    ].join('\n');
    writeFileSync(
      join(tools, 'standin.json'),
      JSON.stringify({ version: 'standin metal version 1\n', air, require: ['-S', '-emit-llvm', '-gline-tables-only'] }),
    );
    machineSettings['msl.compiler.path'] = metal;
    log(`using a stand-in Metal compiler: ${metal}`);
  }
  const MACHINE_MARKER = '// machine settings of the msl end-to-end test';
  const settingsText = {
    user: (values) => JSON.stringify(values, null, 2),
    machine: (values) => `${MACHINE_MARKER}\n${JSON.stringify(values, null, 2)}`,
  };
  mkdirSync(join(userData, 'Machine'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), settingsText.user(settings));
  writeFileSync(join(userData, 'Machine', 'settings.json'), settingsText.machine(machineSettings));

  // code-server must not read or write anything of the real user
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  const common = ['--user-data-dir', userData, '--extensions-dir', extensionsDir];
  const serverLog = join(artifacts, 'code-server.log');
  const configFile = join(temp, 'code-server.yaml');
  // a config file keeps code-server from writing one under the home directory
  const writeConfig = (port) => writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  // 3. install the extension from the .vsix
  writeConfig(await freePort());
  log('installing the extension');
  const installed = await runGroup(process.execPath, [entry, '--config', configFile, ...common, '--install-extension', vsix], {
    timeoutMs: 3 * 60 * 1000,
    logFile: serverLog,
    env,
  });
  if (installed.code !== 0 || !/successfully installed/i.test(installed.text)) {
    fail(`installing ${vsix} failed (exit ${installed.code}):\n${installed.text}`);
  }
  const extDirs = readdirSync(extensionsDir).filter((d) => d.startsWith('msl.msl-'));
  if (extDirs.length !== 1) {
    fail(`expected one msl.msl-* directory in ${extensionsDir}, found: ${readdirSync(extensionsDir).join(', ')}`);
  }
  const bundled = join(extensionsDir, extDirs[0], 'server', 'msl-lsp');
  if (!process.env.MSL_LSP) {
    try {
      accessSync(bundled, constants.X_OK);
    } catch {
      fail(`the .vsix has no executable server/msl-lsp (run "npm run bundle-server -- PATH" before packaging, or set MSL_LSP)`);
    }
  }

  // 4. the browser
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: 60 * 1000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  cleanups.push(async () => {
    await Promise.race([browser.close(), sleep(10 * 1000)]);
  });
  const consoleLines = [];
  cleanups.push(async () => writeFileSync(join(artifacts, 'browser-console.log'), consoleLines.join('\n') + '\n'));
  cleanups.push(async () => {
    // the extension host's logs, including the MSL output channel
    const logs = join(userData, 'logs');
    if (existsSync(logs)) {
      cpSync(logs, join(artifacts, 'vscode-logs'), { recursive: true });
    }
  });
  /** The text of the MSL output channel files written since `since` (ms). */
  const channelText = (since) =>
    findFiles(join(userData, 'logs'), (f) => f.endsWith('-MSL.log'))
      .filter((f) => statSync(f).mtimeMs >= since)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');

  /**
   * Serves the workbench on loopback in a process group of its own, and opens it in a new
   * browser page. `stop` ends both.
   */
  const openSession = async (name, workspace, extraArgs) => {
    const port = await freePort();
    writeConfig(port);
    log(`${name}: starting code-server on 127.0.0.1:${port}`);
    const serverOut = createWriteStream(serverLog, { flags: 'a' });
    const server = spawn(
      process.execPath,
      [
        entry,
        '--config',
        configFile,
        ...common,
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-getting-started-override',
        '--ignore-last-opened',
        ...extraArgs,
        workspace,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    let serverExited = false;
    server.on('exit', () => {
      serverExited = true;
    });
    server.stdout.pipe(serverOut);
    server.stderr.pipe(serverOut);
    const stopServer = () => killGroup(server.pid, 'code-server');
    cleanups.push(stopServer);
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 90 * 1000, () => !serverExited);

    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    page.setDefaultTimeout(30 * 1000);
    page.on('console', (m) => consoleLines.push(`[${name}] [${m.type()}] ${m.text()}`));
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
    log(`${name}: opening ${url}`);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60 * 1000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 90 * 1000 });
    log(`${name}: the workbench is up`);
    const stop = async () => {
      await context.close().catch(() => {});
      await stopServer();
    };
    return { page, stop };
  };

  // 5. a trusted workspace: everything the extension does
  const trustedStart = Date.now();
  const first = await openSession('trusted', workspace, ['--disable-workspace-trust']);
  const page = first.page;

  // the workbench does not notice edits made to settings files behind its back, so changes
  // go through its settings editors, like a user's would
  const changeSettings = async (which, extra) => {
    const [title, marker, base] =
      which === 'user'
        ? ['Open User Settings (JSON)', 'telemetry.telemetryLevel', settings]
        : ['Open Remote Settings (JSON)', MACHINE_MARKER, machineSettings];
    await runPaletteCommand(page, `Preferences: ${title}`);
    const settingsEditor = page.locator('.editor-instance .monaco-editor', { hasText: marker }).first();
    await settingsEditor.waitFor();
    await settingsEditor.locator('.view-lines').click();
    // pasted, not typed, so that auto-indentation and closing brackets leave it alone
    await page.evaluate((text) => navigator.clipboard.writeText(text), settingsText[which]({ ...base, ...extra }));
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+V');
    await page.keyboard.press('Control+S');
    await page.locator('.tab.dirty', { hasText: 'settings.json' }).waitFor({ state: 'detached' });
  };
  try {
    await drive(page, changeSettings, workspace);
    // the extension says in its log which server it started first
    const expected = process.env.MSL_LSP ? `${machineSettings['msl.server.path']} (setting)` : `${bundled} (bundled)`;
    const started = channelText(trustedStart).match(/Starting (.*)\./);
    if (started === null || started[1] !== expected) {
      fail(`expected the extension to start ${expected}, its log says: ${started ? started[0] : '(nothing)'}`);
    }
    log(`the extension started ${expected}`);
  } catch (e) {
    await page.screenshot({ path: join(artifacts, 'e2e-failure.png') }).catch(() => {});
    throw e;
  }
  await first.stop();

  // 6. an untrusted workspace: the extension works in restricted mode with the compiler off,
  // and sends the full settings once the user trusts the folder
  const untrusted = join(temp, 'untrusted-workspace');
  cpSync(join(here, 'fixture'), untrusted, { recursive: true });
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    settingsText.user({ ...settings, 'msl.trace.server': 'verbose', 'security.workspace.trust.startupPrompt': 'never' }),
  );
  const untrustedStart = Date.now();
  const second = await openSession('untrusted', untrusted, []);
  try {
    await checkRestrictedMode(second.page, () => channelText(untrustedStart));
  } catch (e) {
    await second.page.screenshot({ path: join(artifacts, 'e2e-failure.png') }).catch(() => {});
    throw e;
  }
  await second.stop();
}

/** Opens the fixture from the explorer and waits for the Metal language server to run. */
async function openFixture(page) {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: FIXTURE_FILE });
  await row.first().waitFor({ timeout: 60 * 1000 });
  await row.first().dblclick();
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-lines').waitFor();
  await editor.locator('.view-line', { hasText: 'clamb' }).waitFor();
  log(`${FIXTURE_FILE} is open`);
  const statusItem = page.locator('.statusbar-item', { hasText: /Metal \d+\.\d+/ });
  await eventually('the MSL status bar item to appear', 60 * 1000, async () => (await statusItem.count()) > 0);
  await eventually('the MSL status bar item to show a running server', 60 * 1000, async () =>
    (await statusItem.first().locator('.codicon-check').count()) > 0,
  );
  return { editor, statusItem };
}

async function checkRestrictedMode(page, channel) {
  await eventually('the second workspace to open in Restricted Mode', 30 * 1000, async () =>
    (await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).count()) > 0,
  );
  await openFixture(page);
  log('in Restricted Mode the extension activated and its server runs');
  // the initialize request carries the settings; its trace shows them
  // (the path, a machine setting, may be set: the mode is what keeps the compiler off)
  const compilerOff = /"compiler":\s*\{\s*"path":\s*(null|"[^"]*"),\s*"mode":\s*"off"/;
  const init = await eventually('the traced initialize request', 30 * 1000, async () => {
    const m = /Sending request 'initialize[\s\S]*?(?=\[Trace)/.exec(channel());
    return m === null ? false : m[0];
  });
  if (!compilerOff.test(init)) {
    fail(`in Restricted Mode initialize should send compiler.mode "off":\n${init.slice(0, 2000)}`);
  }
  log('in Restricted Mode the server was told not to run the compiler');

  await runPaletteCommand(page, 'Workspaces: Manage Workspace Trust');
  const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ });
  await trustButton.first().click();
  await eventually('the extension to send the full settings after trust was granted', 30 * 1000, async () => {
    const text = channel();
    const at = text.indexOf('The workspace is now trusted');
    const after = text.slice(at);
    return (
      at >= 0 &&
      /Sending notification 'workspace\/didChangeConfiguration'[\s\S]*"mode":\s*"onSave"/.test(after) &&
      !after.includes('Restarting the language server')
    );
  });
  log('granting trust sent compiler.mode "onSave" to the server');
}

async function drive(page, changeSettings, workspace) {
  const { editor, statusItem } = await openFixture(page);

  // (a) activation: the status item reports a running server (openFixture waited for it)
  // and the language mode is Metal
  const mode = page.locator('#status\\.editor\\.mode');
  await eventually('the language mode indicator to say "Metal"', 30 * 1000, async () =>
    /\bMetal\b/.test(await mode.innerText()),
  );
  log(`activated; status bar: "${(await statusItem.first().innerText()).trim()}"`);

  // nested indexing (`values[order[index]]`) and attributes (`[[buffer(0)]]`) both read as
  // balanced brackets to the editor's bracket-pair colorization
  const colored = await eventually('bracket pairs to be colorized', 30 * 1000, async () =>
    editor.locator('[class*="bracket-highlighting-"]').count(),
  );
  const unbalanced = await editor.locator('.unexpected-closing-bracket').count();
  if (unbalanced > 0) {
    fail(`bracket pairs: ${colored} colorized, ${unbalanced} marked unbalanced`);
  }

  // (b) the checker's error shows in the editor and in the Problems panel
  await eventually('an error squiggle in the editor', 60 * 1000, async () => (await editor.locator('.squiggly-error').count()) > 0);
  await page.keyboard.press('Control+Shift+M');
  const markers = page.locator('.markers-panel .monaco-list-row');
  const problem = markers.filter({ hasText: 'is not declared' });
  await eventually('the Problems panel to list "`clamb` is not declared"', 60 * 1000, async () => (await problem.count()) > 0);
  const problemText = (await problem.first().innerText()).replace(/\s+/g, ' ');
  if (!problemText.includes('clamb') || !problemText.includes('E1401')) {
    fail(`the Problems panel row lacks the name or the code: "${problemText}"`);
  }
  log(`Problems panel: "${problemText}"`);

  // (c) hovering the library call shows the server's documentation
  await editor.locator('.view-lines').click();
  const clampToken = editor.locator('.view-line span span', { hasText: /^clamp$/ }).first();
  await clampToken.waitFor();
  const hover = page.locator('.monaco-hover-content');
  const hoverText = await eventually('a hover with the documentation of clamp', 60 * 1000, async () => {
    await page.mouse.move(5, 5);
    await sleep(200);
    await clampToken.hover();
    try {
      await hover.filter({ hasText: 'clamp(' }).first().waitFor({ timeout: 3000 });
    } catch {
      return false;
    }
    const text = (await hover.allInnerTexts()).join('\n');
    return text.includes('clamp(') && text.includes('minval') && text.length > 80 ? text : false;
  });
  log(`hover: "${hoverText.replace(/\s+/g, ' ').slice(0, 160)}..."`);
  await page.screenshot({ path: join(artifacts, 'e2e.png') });
  log('saved test-artifacts/e2e.png');
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');

  // the extension's own commands: the syntax tree opens beside the source
  await runCommand(page, editor, 'MSL: Show Syntax Tree');
  const treeEditor = page.locator('.editor-instance .view-line', { hasText: 'SOURCE_FILE' });
  await eventually('the syntax tree document to open', 30 * 1000, async () => (await treeEditor.count()) > 0);
  const tab = page.locator('.tab', { hasText: `${FIXTURE_FILE}.syntax-tree` });
  if ((await tab.count()) === 0) {
    fail('the syntax tree opened without its tab title');
  }
  log('MSL: Show Syntax Tree opened the tree beside the source');

  // the macro at the cursor, expanded in a document beside the source
  const macroToken = editor
    .locator('.view-line', { hasText: 'UNIT_MAX);' })
    .locator('span span', { hasText: /^UNIT_MAX$/ })
    .first();
  await macroToken.click();
  await runPaletteCommand(page, 'MSL: Expand Macro at Cursor');
  const expansion = page.locator('.editor-instance .view-line', { hasText: 'UNIT_MAX expands to:' });
  await eventually('the macro expansion document to open', 30 * 1000, async () =>
    (await page.locator('.tab', { hasText: `${FIXTURE_FILE}.expansion.metal` }).count()) > 0 &&
    (await expansion.count()) > 0,
  );
  log('MSL: Expand Macro at Cursor opened the expansion of UNIT_MAX beside the source');

  // rename across files: a function declared in a shared header, defined and called in a
  // unit that is not open, renamed from the open one
  const toneToken = editor
    .locator('.view-line', { hasText: 'tone(x);' })
    .locator('span span', { hasText: /^tone$/ })
    .first();
  await toneToken.click();
  await page.keyboard.press('F2');
  const renameInput = page.locator('.rename-box input, .rename-input');
  await renameInput.first().waitFor({ timeout: 30 * 1000 });
  await renameInput.first().fill('tone_curve');
  await page.keyboard.press('Enter');
  await eventually('the rename to change the open file', 30 * 1000, async () =>
    (await editor.locator('.view-line', { hasText: 'tone_curve(x);' }).count()) > 0,
  );
  await runPaletteCommand(page, 'File: Save All');
  const renamedOnDisk = (name) => readFileSync(join(workspace, name), 'utf8');
  await eventually('the rename to reach the header and the unit that is not open', 30 * 1000, async () =>
    renamedOnDisk('tone.h').includes('float tone_curve(float x);') &&
    renamedOnDisk('other.metal').includes('float tone_curve(float x)') &&
    renamedOnDisk('other.metal').includes('values[index] = tone_curve(values[index]);'),
  );
  log('rename changed tone to tone_curve in shader.metal, tone.h and the unopened other.metal');

  // formatting through the server: "Format Document" lines the entry point's attributes
  // up, and with format-on-save an edit is written formatted
  const onDisk = () => readFileSync(join(workspace, FIXTURE_FILE), 'utf8');
  const lineText = async (needle) =>
    (await editor.locator('.view-line', { hasText: needle }).first().innerText()).replace(/\u00a0/g, ' ');
  await runCommand(page, editor, 'Format Document');
  await eventually('Format Document to line the attributes up', 30 * 1000, async () =>
    (await lineText('uint index')).includes('uint index               [[thread_position_in_grid]])'),
  );
  await runPaletteCommand(page, 'File: Save');
  await eventually('the formatted file to be saved', 30 * 1000, async () =>
    onDisk().includes('device float *values     [[buffer(0)]],'),
  );
  log('Format Document aligned the attributes of the entry point');
  await changeSettings('user', { 'editor.formatOnSave': true });
  await page.locator('.tab', { hasText: FIXTURE_FILE }).first().click();
  await editor.locator('.view-line', { hasText: 'UNIT_MAX);' }).first().click();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('values[index]=x*2.0f;');
  // the line must read as typed (no completion accepted on the way) before it is saved
  await eventually('the new line to read as typed', 30 * 1000, async () =>
    (await editor.locator('.view-line', { hasText: 'values[index]=x*2.0f;' }).count()) > 0,
  );
  await page.keyboard.press('Escape');
  // The settings file is read back by the workbench asynchronously, so a save right after
  // changing it may still run without format-on-save. Such a save writes the line as
  // typed; the file is then touched again (a trailing space, which the formatter removes)
  // and saved once more. A formatter that never runs fails after the deadline.
  // A save that nothing reaches the disk from for 5 s (a key press lost) is made again.
  let saves = 0;
  let lastSave = 0;
  const formattedLine = '\n    values[index] = x * 2.0f;\n';
  const saveAndCheck = async () => {
    if (onDisk().includes(formattedLine)) {
      return true;
    }
    const pending = saves > 0 && !onDisk().includes('values[index]=x*2.0f;');
    if (pending && Date.now() - lastSave < 5000) {
      return false; // the last save has not reached the disk yet
    }
    if (saves > 0 && !pending) {
      await page.keyboard.press('End');
      await page.keyboard.type(' ');
    }
    await page.keyboard.press('Control+S');
    saves += 1;
    lastSave = Date.now();
    await sleep(1000);
    return onDisk().includes(formattedLine);
  };
  try {
    await eventually('format-on-save to write the new line formatted', 45 * 1000, saveAndCheck);
  } catch (e) {
    const near = onDisk()
      .split('\n')
      .filter((l) => l.includes('values[index]') || l.includes('UNIT_MAX'))
      .map((l) => JSON.stringify(l))
      .join(', ');
    fail(`${e.message}; saved ${saves} time(s); the lines on disk: ${near}`);
  }
  if (saves > 1) {
    log(`format-on-save took effect on save ${saves} (the setting arrived after the first)`);
  }
  log('format-on-save wrote "values[index]=x*2.0f;" as "values[index] = x * 2.0f;"');

  // AIR needs Apple's compiler: without one the server's error must be shown, with one the IR
  await runCommand(page, editor, 'MSL: Show AIR');
  const outcome = await eventually('MSL: Show AIR to show the IR or the server error', 60 * 1000, async () => {
    const note = page.locator('.notification-toast', { hasText: 'MSL:' });
    if ((await note.count()) > 0) {
      return `notification "${(await note.first().innerText()).replace(/\s+/g, ' ').trim()}"`;
    }
    if ((await page.locator('.tab', { hasText: `${FIXTURE_FILE}.ll` }).count()) > 0) {
      return 'the AIR document';
    }
    return false;
  });
  log(`MSL: Show AIR gave ${outcome}`);
  if (STANDIN) {
    if (outcome !== 'the AIR document') {
      fail(`with a compiler configured, MSL: Show AIR should open the IR, but gave ${outcome}`);
    }
    const ir = page.locator('.editor-instance .view-line', { hasText: 'air64_v27-apple-macosx15.0.0' });
    await eventually('the AIR document to show the IR', 30 * 1000, async () => (await ir.count()) > 0);
    const name = page.locator('.editor-instance .view-line', { hasText: `${FIXTURE_FILE}` });
    if ((await name.count()) === 0) {
      fail('the AIR document does not name the source file');
    }
    log('MSL: Show AIR opened the IR beside the source');
  }
  await page.screenshot({ path: join(artifacts, 'e2e-commands.png') });

  // changed settings reach the running server: the error becomes a warning, and the
  // status bar follows the configured Metal version
  await changeSettings('user', { 'msl.std': 'metal3.1', 'msl.rules': { E1401: 'warning' } });
  await eventually('the status bar to show the new Metal version 3.1', 30 * 1000, async () =>
    (await page.locator('.statusbar-item', { hasText: 'Metal 3.1' }).count()) > 0,
  );
  await eventually('the undeclared-name diagnostic to turn into a warning', 30 * 1000, async () => {
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'is not declared' }).first();
    return (await row.locator('.codicon-warning').count()) > 0;
  });
  log('a settings change turned E1401 into a warning and the status bar into "Metal 3.1"');

  // a server path that names nothing: the extension restarts, fails, and says what to do
  await changeSettings('machine', { 'msl.server.path': '/nonexistent/msl-lsp' });
  const missing = page.locator('.notification-toast', { hasText: 'msl.server.path points to' });
  await eventually('a notification about the missing server', 30 * 1000, async () => (await missing.count()) > 0);
  if ((await missing.first().locator('.monaco-button', { hasText: 'Open Setting' }).count()) === 0) {
    fail('the missing-server notification has no "Open Setting" button');
  }
  await eventually('the status bar item to show the error', 30 * 1000, async () =>
    (await page.locator('.statusbar-item', { hasText: /Metal \d/ }).locator('.codicon-error').count()) > 0,
  );
  await page.screenshot({ path: join(artifacts, 'e2e-missing-server.png') });
  log('a missing msl.server.path is reported with an "Open Setting" button');

  // and back: the server comes up again
  await changeSettings('machine', {});
  await eventually('the server to run again after the setting was restored', 60 * 1000, async () =>
    (await page.locator('.statusbar-item', { hasText: /Metal \d/ }).locator('.codicon-check').count()) > 0,
  );
  log('restoring the setting restarted the server');
}

/** Runs a command from the palette with the Metal editor focused. */
async function runCommand(page, editor, title) {
  await editor.locator('.view-lines').click();
  await runPaletteCommand(page, title);
}

/** Runs a command by its title from the command palette. */
async function runPaletteCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(`>${title}`);
  const item = page.locator('.quick-input-list .monaco-list-row', { hasText: title });
  await item.first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

const overall = setTimeout(() => {
  console.error(`FAIL: the end-to-end test took longer than ${TOTAL_TIMEOUT_MS / 60000} minutes`);
  void cleanup().then(() => process.exit(1));
}, TOTAL_TIMEOUT_MS);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`interrupted by ${signal}`);
    void cleanup().then(() => process.exit(130));
  });
}

try {
  await main();
  log('PASS');
  await cleanup();
  clearTimeout(overall);
  process.exit(0);
} catch (e) {
  console.error(`FAIL: ${e instanceof TestFailure ? e.message : e?.stack ?? e}`);
  await cleanup();
  clearTimeout(overall);
  console.error(`artifacts: ${artifacts}`);
  process.exit(1);
}
