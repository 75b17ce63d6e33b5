import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metalVersionLabel, parseServerStatus, platformLabel, statusView } from '../../src/statusModel';

test('the Metal version label accepts every spelling msl does', () => {
  assert.equal(metalVersionLabel(undefined), 'Metal 4.1');
  assert.equal(metalVersionLabel('  '), 'Metal 4.1');
  assert.equal(metalVersionLabel('metal3.2'), 'Metal 3.2');
  assert.equal(metalVersionLabel('3.1'), 'Metal 3.1');
  assert.equal(metalVersionLabel('ios-metal2.4'), 'Metal 2.4');
  assert.equal(metalVersionLabel('MACOS-METAL2.3'), 'Metal 2.3');
  assert.equal(metalVersionLabel('weird'), 'Metal weird');
});

test('the platform comes from the setting, else from the std prefix', () => {
  assert.equal(platformLabel('metal3.2', 'auto'), undefined);
  assert.equal(platformLabel('ios-metal2.4', 'auto'), 'iOS');
  assert.equal(platformLabel('ios-metal2.4', 'visionos'), 'visionOS');
  assert.equal(platformLabel(undefined, 'macos'), 'macOS');
});

test('the item shows the state and the configured version', () => {
  const starting = statusView({ state: 'starting', configuredStd: '', trusted: true });
  assert.equal(starting.text, '$(loading~spin) Metal 4.1');
  assert.match(starting.tooltip, /server: starting/);
  assert.match(starting.tooltip, /Metal version: 4\.1 \(default\)/);
  assert.equal(starting.severity, 'none');

  const running = statusView({
    state: 'running',
    configuredStd: 'metal3.2',
    trusted: true,
    serverPath: '/ext/server/msl-lsp',
    serverSource: 'bundled',
  });
  assert.equal(running.text, '$(check) Metal 3.2');
  assert.match(running.tooltip, /Server: \/ext\/server\/msl-lsp \(bundled\)/);
  assert.match(running.tooltip, /Click to open the logs/);
});

test('stopped and error states stand out', () => {
  assert.equal(statusView({ state: 'stopped', trusted: true }).severity, 'warning');
  const error = statusView({ state: 'error', trusted: true, detail: 'msl-lsp was not found' });
  assert.equal(error.severity, 'error');
  assert.equal(error.text, '$(error) Metal 4.1');
  assert.match(error.tooltip, /msl-lsp was not found/);
});

test('what the server reports wins, with the compiler in the tooltip', () => {
  const view = statusView({
    state: 'running',
    configuredStd: 'metal3.0',
    trusted: true,
    server: { std: 'metal3.2', platform: 'ios', compiler: { path: '/usr/bin/metal', version: '32023.35' } },
  });
  assert.equal(view.text, '$(check) Metal 3.2');
  assert.match(view.tooltip, /Platform: iOS/);
  assert.match(view.tooltip, /Compiler: \/usr\/bin\/metal \(32023\.35\)/);

  const none = statusView({ state: 'running', trusted: true, server: { std: '4.1', platform: 'macos', compiler: null } });
  assert.match(none.tooltip, /Compiler: none found/);

  const withMode = statusView({
    state: 'running',
    trusted: true,
    server: { std: 'metal4.1', platform: 'macos', compiler: { path: '/usr/bin/xcrun', version: '' }, compilerMode: 'onIdle' },
  });
  assert.match(withMode.tooltip, /Compiler: \/usr\/bin\/xcrun \(onIdle\)/);
  const off = statusView({
    state: 'running',
    trusted: true,
    server: { std: 'metal4.1', platform: 'macos', compiler: null, compilerMode: 'off' },
  });
  assert.match(off.tooltip, /Compiler: off/);
});

test('an untrusted workspace says the compiler is off', () => {
  const view = statusView({
    state: 'running',
    trusted: false,
    server: { std: '4.1', platform: 'macos', compiler: { path: '/usr/bin/metal', version: '1' } },
  });
  assert.match(view.tooltip, /Compiler: off \(the workspace is not trusted\)/);
  assert.match(statusView({ state: 'running', trusted: true, compilerMode: 'off' }).tooltip, /Compiler: off/);
});

test('msl/status notifications are checked before use', () => {
  assert.deepEqual(parseServerStatus({ std: 'metal3.2', platform: 'macos', compiler: null }), {
    std: 'metal3.2',
    platform: 'macos',
    compiler: null,
  });
  assert.deepEqual(parseServerStatus({ std: '3.2', platform: 'ios', compiler: { path: '/x/metal', version: '2' } }), {
    std: '3.2',
    platform: 'ios',
    compiler: { path: '/x/metal', version: '2' },
  });
  assert.deepEqual(parseServerStatus({ std: '3.2', platform: 'ios' }), { std: '3.2', platform: 'ios', compiler: null });
  // the shape the server sends, with fields the status bar does not use
  assert.deepEqual(
    parseServerStatus({
      std: 'metal3.2',
      version: '3.2',
      platform: 'macos',
      compiler: { path: '/usr/bin/xcrun', version: 'metal 32023.35' },
      compilerMode: 'onSave',
    }),
    {
      std: 'metal3.2',
      platform: 'macos',
      compiler: { path: '/usr/bin/xcrun', version: 'metal 32023.35' },
      compilerMode: 'onSave',
    },
  );
  assert.deepEqual(parseServerStatus({ std: '3.2', platform: 'ios', compiler: { path: '/m' } }), {
    std: '3.2',
    platform: 'ios',
    compiler: { path: '/m', version: '' },
  });
  assert.equal(parseServerStatus(null), undefined);
  assert.equal(parseServerStatus('metal3.2'), undefined);
  assert.equal(parseServerStatus({ std: 3.2, platform: 'ios' }), undefined);
  assert.equal(parseServerStatus({ std: '3.2', platform: 'ios', compiler: { version: '1' } }), undefined);
  assert.equal(parseServerStatus({ std: '3.2', platform: 'ios', compiler: 'metal' }), undefined);
});

test('the tooltip names the unit that gives the active file its context', () => {
  const status = parseServerStatus({
    std: 'metal3.2',
    platform: 'macos',
    compiler: null,
    contexts: { 'file:///w/body.metal': 'file:///w/all%20kernels.metal', 'file:///w/bad.metal': 7 },
  });
  assert.ok(status !== undefined);
  assert.deepEqual(status.contexts, { 'file:///w/body.metal': 'file:///w/all%20kernels.metal' });
  const inside = statusView({ state: 'running', trusted: true, server: status, activeUri: 'file:///w/body.metal' });
  assert.match(inside.tooltip, /analysed as included by all kernels\.metal/);
  const alone = statusView({ state: 'running', trusted: true, server: status, activeUri: 'file:///w/other.metal' });
  assert.doesNotMatch(alone.tooltip, /Context:/);
});
