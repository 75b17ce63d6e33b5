import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  describeFailure,
  DiscoveryHost,
  ensureExecutable,
  envValue,
  expandHome,
  findServer,
  nodeHost,
  searchPath,
  serverFileName,
} from '../../src/serverPath';

/** A pretend machine: `files` maps paths to whether they are executable. */
function fakeHost(
  platform: NodeJS.Platform,
  env: Record<string, string>,
  files: Record<string, boolean>,
  homeDir = platform === 'win32' ? 'C:\\Users\\ada' : '/home/ada',
): DiscoveryHost & { probed: string[] } {
  const probed: string[] = [];
  return {
    platform,
    env,
    homeDir,
    probed,
    isFile: (f) => f in files,
    isExecutable: (f) => {
      probed.push(f);
      return files[f] === true;
    },
  };
}

const EXT = '/ext/msl-0.1.0';
const BUNDLED = '/ext/msl-0.1.0/server/msl-lsp';

test('the setting wins over the bundled binary and PATH', () => {
  const host = fakeHost('linux', { PATH: '/usr/bin' }, { '/opt/msl/msl-lsp': true, [BUNDLED]: true, '/usr/bin/msl-lsp': true });
  assert.deepEqual(findServer('/opt/msl/msl-lsp', EXT, host), { kind: 'found', path: '/opt/msl/msl-lsp', source: 'setting' });
});

test('a setting with surrounding spaces and ~ is expanded', () => {
  const host = fakeHost('linux', {}, { '/home/ada/.cargo/bin/msl-lsp': true });
  assert.deepEqual(findServer('  ~/.cargo/bin/msl-lsp ', EXT, host), {
    kind: 'found',
    path: '/home/ada/.cargo/bin/msl-lsp',
    source: 'setting',
  });
  assert.deepEqual(findServer('${userHome}/.cargo/bin/msl-lsp', EXT, host), {
    kind: 'found',
    path: '/home/ada/.cargo/bin/msl-lsp',
    source: 'setting',
  });
});

test('a bare name in the setting is looked up on PATH', () => {
  const host = fakeHost('linux', { PATH: '/a:/b' }, { '/b/msl-lsp-nightly': true });
  assert.deepEqual(findServer('msl-lsp-nightly', EXT, host), { kind: 'found', path: '/b/msl-lsp-nightly', source: 'setting' });
});

test('a relative setting is taken from the workspace folder', () => {
  const host = fakeHost('linux', {}, { '/work/proj/target/release/msl-lsp': true });
  assert.deepEqual(findServer('./target/release/msl-lsp', EXT, host, '/work/proj'), {
    kind: 'found',
    path: '/work/proj/target/release/msl-lsp',
    source: 'setting',
  });
});

test('a setting naming a missing file is an error, not a silent fallback', () => {
  const host = fakeHost('linux', { PATH: '/usr/bin' }, { [BUNDLED]: true, '/usr/bin/msl-lsp': true });
  const result = findServer('/nowhere/msl-lsp', EXT, host);
  assert.deepEqual(result, { kind: 'invalid-setting', configured: '/nowhere/msl-lsp', resolved: '/nowhere/msl-lsp', reason: 'missing' });
  assert.match(describeFailure(result as never), /msl\.server\.path points to "\/nowhere\/msl-lsp", which does not exist/);
});

test('a setting naming a file without execute permission says so', () => {
  const host = fakeHost('linux', {}, { '/opt/msl-lsp': false });
  const result = findServer('/opt/msl-lsp', EXT, host);
  assert.equal(result.kind, 'invalid-setting');
  assert.equal(result.kind === 'invalid-setting' && result.reason, 'not-executable');
  assert.match(describeFailure(result as never), /not executable/);
});

test('a bare name in the setting that PATH lacks is reported', () => {
  const host = fakeHost('linux', { PATH: '/usr/bin' }, { [BUNDLED]: true });
  const result = findServer('msl-lsp-dev', EXT, host);
  assert.deepEqual(result, { kind: 'invalid-setting', configured: 'msl-lsp-dev', resolved: undefined, reason: 'missing' });
  assert.match(describeFailure(result as never), /"msl-lsp-dev", which does not exist/);
});

test('without a setting the bundled binary is used', () => {
  const host = fakeHost('linux', { PATH: '/usr/bin' }, { [BUNDLED]: true, '/usr/bin/msl-lsp': true });
  for (const setting of [undefined, null, '', '   ']) {
    assert.deepEqual(findServer(setting, EXT, host), { kind: 'found', path: BUNDLED, source: 'bundled' });
  }
});

test('without a setting or bundled binary, PATH is searched in order', () => {
  const host = fakeHost(
    'linux',
    { PATH: '/usr/local/bin::/home/ada/.cargo/bin:/usr/bin' },
    { '/home/ada/.cargo/bin/msl-lsp': true, '/usr/bin/msl-lsp': true, '/usr/local/bin/msl-lsp': false },
  );
  assert.deepEqual(findServer('', EXT, host), { kind: 'found', path: '/home/ada/.cargo/bin/msl-lsp', source: 'path' });
  // the non-executable file in /usr/local/bin was looked at and skipped; the empty entry was not probed
  assert.deepEqual(host.probed, [BUNDLED, '/usr/local/bin/msl-lsp', '/home/ada/.cargo/bin/msl-lsp']);
});

test('nothing found lists every place searched and tells how to install', () => {
  const host = fakeHost('linux', { PATH: '/usr/bin:/bin' }, {});
  const result = findServer(undefined, EXT, host);
  assert.deepEqual(result, { kind: 'not-found', searched: [BUNDLED, '/usr/bin/msl-lsp', '/bin/msl-lsp'] });
  const text = describeFailure(result as never);
  assert.match(text, /cargo install --path crates\/msl-lsp/);
  assert.match(text, /msl\.server\.path/);
});

test('no PATH at all is not an error by itself', () => {
  const host = fakeHost('linux', {}, {});
  assert.deepEqual(findServer(undefined, EXT, host), { kind: 'not-found', searched: [BUNDLED] });
});

test('Windows: the bundled server is msl-lsp.exe', () => {
  assert.equal(serverFileName('win32'), 'msl-lsp.exe');
  assert.equal(serverFileName('darwin'), 'msl-lsp');
  const ext = 'C:\\ext\\msl';
  const host = fakeHost('win32', {}, { 'C:\\ext\\msl\\server\\msl-lsp.exe': true, 'C:\\ext\\msl\\server\\msl-lsp': true });
  assert.deepEqual(findServer(undefined, ext, host), { kind: 'found', path: 'C:\\ext\\msl\\server\\msl-lsp.exe', source: 'bundled' });
});

test('Windows: PATH is split on ; and read case-insensitively, quotes allowed', () => {
  const host = fakeHost('win32', { Path: 'C:\\Windows;"C:\\Tools\\msl";C:\\bin' }, { 'C:\\Tools\\msl\\msl-lsp.exe': true });
  assert.deepEqual(findServer('', 'C:\\ext', host), { kind: 'found', path: 'C:\\Tools\\msl\\msl-lsp.exe', source: 'path' });
});

test('Windows: a bare name in the setting tries the PATHEXT extensions', () => {
  const host = fakeHost('win32', { PATH: 'C:\\bin', PATHEXT: '.COM;.EXE;.CMD' }, { 'C:\\bin\\msl-lsp.cmd': true });
  assert.equal(searchPath('msl-lsp', host), 'C:\\bin\\msl-lsp.cmd');
  assert.deepEqual(findServer('msl-lsp', 'C:\\ext', host), { kind: 'found', path: 'C:\\bin\\msl-lsp.cmd', source: 'setting' });
});

test('Windows: an absolute setting with backslashes is used as a path', () => {
  const host = fakeHost('win32', {}, { 'D:\\msl\\msl-lsp.exe': true });
  assert.deepEqual(findServer('D:\\msl\\msl-lsp.exe', 'C:\\ext', host), {
    kind: 'found',
    path: 'D:\\msl\\msl-lsp.exe',
    source: 'setting',
  });
  assert.deepEqual(findServer('~\\bin\\msl-lsp.exe', 'C:\\ext', fakeHost('win32', {}, { 'C:\\Users\\ada\\bin\\msl-lsp.exe': true })), {
    kind: 'found',
    path: 'C:\\Users\\ada\\bin\\msl-lsp.exe',
    source: 'setting',
  });
});

test('envValue is exact on Unix and case-insensitive on Windows', () => {
  assert.equal(envValue({ platform: 'linux', env: { Path: '/x' } }, 'PATH'), undefined);
  assert.equal(envValue({ platform: 'win32', env: { Path: 'C:\\x' } }, 'PATH'), 'C:\\x');
});

test('expandHome only expands a leading ~ and ${userHome}', () => {
  assert.equal(expandHome('~', '/h'), '/h');
  assert.equal(expandHome('~/x', '/h'), '/h/x');
  assert.equal(expandHome('/a/~/x', '/h'), '/a/~/x');
  assert.equal(expandHome('~other/x', '/h'), '~other/x');
  assert.equal(expandHome('${userHome}/bin', '/h'), '/h/bin');
});

test('the real host sees execute permission, and ensureExecutable restores it', { skip: process.platform === 'win32' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msl-unit-'));
  try {
    const file = path.join(dir, 'msl-lsp');
    fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o644 });
    const host = nodeHost();
    assert.equal(host.isFile(file), true);
    assert.equal(host.isExecutable(file), false);
    assert.equal(host.isExecutable(dir), false);
    ensureExecutable(file);
    assert.equal(host.isExecutable(file), true);
    assert.equal(fs.statSync(file).mode & 0o777, 0o755);
    // absent files are left alone without throwing
    ensureExecutable(path.join(dir, 'absent'));
    assert.equal(host.isFile(path.join(dir, 'absent')), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every per-platform package: discovery picks the server it carries', () => {
  // the table `cargo xtask dist` packages by (and checks itself against)
  const table = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'platforms.json'), 'utf8')) as {
    packages: { vscode: string; node: NodeJS.Platform; triple: string; server: string }[];
  };
  assert.equal(table.packages.length, 6);
  for (const pkg of table.packages) {
    const win = pkg.node === 'win32';
    const ext = win ? 'C:\\Users\\ada\\.vscode\\extensions\\msl.msl-0.1.0-' + pkg.vscode : '/home/ada/.vscode/extensions/msl.msl-0.1.0-' + pkg.vscode;
    const inside = win ? ext + '\\' + pkg.server.replace(/\//g, '\\') : ext + '/' + pkg.server;
    // the package holds only its own server; an msl-lsp on PATH must not win over it
    const onPath = win ? 'C:\\tools\\msl-lsp.exe' : '/usr/local/bin/msl-lsp';
    const env: Record<string, string> = win ? { Path: 'C:\\tools', PATHEXT: '.EXE' } : { PATH: '/usr/local/bin' };
    const host = fakeHost(pkg.node, env, { [inside]: true, [onPath]: true });
    assert.equal(pkg.server, 'server/' + serverFileName(pkg.node), pkg.vscode);
    assert.deepEqual(findServer(undefined, ext, host), { kind: 'found', path: inside, source: 'bundled' }, pkg.vscode);
  }
});
