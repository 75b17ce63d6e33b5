import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configurationFor, expandPathVariables, toServerSettings } from '../../src/settings';

/** Reads settings from a flat object keyed like `inlayHints.autoTypes`. */
function reader(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

const trusted = { trusted: true, workspaceFolder: '/ws', homeDir: '/home/ada' };

/** The values VS Code reports when nothing is configured (the package.json defaults). */
const DEFAULTS = {
  std: '',
  platform: 'auto',
  includePaths: [],
  defines: [],
  rules: {},
  'inlayHints.autoTypes': true,
  'inlayHints.parameterNames': true,
  'compiler.path': '',
  'compiler.mode': 'onSave',
  'compiler.timeoutSeconds': 30,
  'server.path': '',
  'trace.server': 'off',
};

test('defaults leave std and platform to the server', () => {
  const { settings, problems } = toServerSettings(reader(DEFAULTS), trusted);
  assert.deepEqual(settings, {
    includePaths: [],
    defines: [],
    rules: {},
    inlayHints: { autoTypes: true, parameterNames: true },
    compiler: { path: null, mode: 'onSave', timeoutSeconds: 30 },
  });
  assert.deepEqual(problems, []);
  // the keys the server does not know never reach it
  assert.equal('server' in settings, false);
  assert.equal('trace' in settings, false);
});

test('nothing configured at all gives the same result as the defaults', () => {
  const { settings, problems } = toServerSettings(reader({}), trusted);
  assert.deepEqual(settings, toServerSettings(reader(DEFAULTS), trusted).settings);
  assert.deepEqual(problems, []);
});

test('every setting is carried over under the server key names', () => {
  const { settings, problems } = toServerSettings(
    reader({
      std: ' metal3.2 ',
      platform: 'iOS',
      includePaths: ['include', '${workspaceFolder}/shared', '~/sdk/include', '  '],
      defines: ['TILE=16', 'USE_SIMD', 'EXPR=(a + b)'],
      rules: { W1101: 'off', w1301: 'Error', E0100: 'warning' },
      'inlayHints.autoTypes': false,
      'inlayHints.parameterNames': true,
      'compiler.path': '/usr/bin/xcrun',
      'compiler.mode': 'onIdle',
      'compiler.timeoutSeconds': 5,
    }),
    trusted,
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    std: 'metal3.2',
    platform: 'ios',
    includePaths: ['include', '/ws/shared', '/home/ada/sdk/include'],
    defines: ['TILE=16', 'USE_SIMD', 'EXPR=(a + b)'],
    rules: { W1101: 'off', W1301: 'error', E0100: 'warning' },
    inlayHints: { autoTypes: false, parameterNames: true },
    compiler: { path: '/usr/bin/xcrun', mode: 'onIdle', timeoutSeconds: 5 },
  });
});

test('an untrusted workspace never runs the compiler', () => {
  for (const mode of ['onSave', 'onIdle', 'off', undefined]) {
    const { settings } = toServerSettings(reader({ 'compiler.mode': mode, 'compiler.path': '/usr/bin/metal' }), {
      trusted: false,
    });
    assert.equal(settings.compiler.mode, 'off', `mode ${mode}`);
    // the path is a machine setting the workspace cannot change, so it may still be sent
    assert.equal(settings.compiler.path, '/usr/bin/metal');
  }
});

test('the other settings are unaffected by trust', () => {
  const values = reader({ std: '3.1', defines: ['A'], rules: { W0001: 'off' } });
  const a = toServerSettings(values, { trusted: true }).settings;
  const b = toServerSettings(values, { trusted: false }).settings;
  assert.deepEqual({ ...a, compiler: null }, { ...b, compiler: null });
});

test('values of the wrong shape are dropped and reported', () => {
  const { settings, problems } = toServerSettings(
    reader({
      std: 32,
      platform: 'android',
      includePaths: 'include',
      defines: ['OK', 7, '1BAD', 'ALSO OK'],
      rules: { W1101: 'loud', W1102: 3, W1103: 'off' },
      'inlayHints.autoTypes': 'yes',
      'inlayHints.parameterNames': null,
      'compiler.path': 12,
      'compiler.mode': 'always',
      'compiler.timeoutSeconds': -1,
    }),
    trusted,
  );
  assert.deepEqual(settings, {
    includePaths: [],
    defines: ['OK'],
    rules: { W1103: 'off' },
    inlayHints: { autoTypes: true, parameterNames: true },
    compiler: { path: null, mode: 'onSave', timeoutSeconds: 30 },
  });
  const all = problems.join('\n');
  for (const expected of [
    /msl\.std should be a string/,
    /msl\.platform "android"/,
    /msl\.includePaths should be a list/,
    /msl\.defines: 7 is not a string/,
    /msl\.defines: "1BAD"/,
    /msl\.defines: "ALSO OK"/,
    /msl\.rules: W1101/,
    /msl\.rules: W1102/,
    /msl\.inlayHints\.autoTypes should be true or false/,
    /msl\.compiler\.path should be a string/,
    /msl\.compiler\.mode "always"/,
    /msl\.compiler\.timeoutSeconds -1 is not a positive number/,
  ]) {
    assert.match(all, expected);
  }
  assert.equal(problems.length, 12);
});

test('rules that are not an object are reported', () => {
  for (const rules of [['W1101'], 'W1101=off', 5]) {
    const { settings, problems } = toServerSettings(reader({ rules }), trusted);
    assert.deepEqual(settings.rules, {});
    assert.match(problems.join(), /msl\.rules should be an object/);
  }
});

test('an unusual std is passed on, with a note, so the server can explain', () => {
  const { settings, problems } = toServerSettings(reader({ std: 'metal-latest' }), trusted);
  assert.equal(settings.std, 'metal-latest');
  assert.match(problems.join(), /does not look like a Metal version/);
  for (const good of ['metal4.1', '3.2', 'macos-metal2.4', 'ios-metal2.4', 'IOS-2.4']) {
    assert.deepEqual(toServerSettings(reader({ std: good }), trusted).problems, [], good);
  }
});

test('the compiler timeout is capped at an hour and must be a positive number', () => {
  const timeout = (value: unknown) => toServerSettings(reader({ 'compiler.timeoutSeconds': value }), trusted);
  assert.equal(timeout(2.5).settings.compiler.timeoutSeconds, 2.5);
  assert.equal(timeout(99999).settings.compiler.timeoutSeconds, 3600);
  for (const bad of [0, '10', Number.NaN]) {
    assert.equal(timeout(bad).settings.compiler.timeoutSeconds, 30, String(bad));
    assert.equal(timeout(bad).problems.length, 1, String(bad));
  }
});

test('compiler mode names are matched without regard to case', () => {
  assert.equal(toServerSettings(reader({ 'compiler.mode': 'ONIDLE' }), trusted).settings.compiler.mode, 'onIdle');
  assert.equal(toServerSettings(reader({ 'compiler.mode': 'Off' }), trusted).settings.compiler.mode, 'off');
});

test('path variables', () => {
  const ctx = { trusted: true, workspaceFolder: '/w', homeDir: '/h' };
  assert.equal(expandPathVariables('${workspaceFolder}/inc', ctx), '/w/inc');
  assert.equal(expandPathVariables('~/inc', ctx), '/h/inc');
  assert.equal(expandPathVariables('${userHome}/inc', ctx), '/h/inc');
  assert.equal(expandPathVariables('inc/~', ctx), 'inc/~');
  // without a workspace folder the variable stays for the user to notice in the log
  assert.equal(expandPathVariables('${workspaceFolder}/inc', { trusted: true }), '${workspaceFolder}/inc');
});

test('workspace/configuration answers for msl and its parts only', () => {
  const { settings } = toServerSettings(reader({ std: 'metal3.0', 'compiler.mode': 'onIdle' }), { trusted: false });
  assert.deepEqual(configurationFor('msl', settings), settings);
  assert.deepEqual(configurationFor('msl.compiler', settings), { path: null, mode: 'off', timeoutSeconds: 30 });
  assert.equal(configurationFor('msl.inlayHints.autoTypes', settings), true);
  assert.equal(configurationFor('msl.std', settings), 'metal3.0');
  assert.equal(configurationFor('msl.nothing.here', settings), null);
  assert.equal(configurationFor('editor', settings), undefined);
  assert.equal(configurationFor('mslx', settings), undefined);
  assert.equal(configurationFor(undefined, settings), undefined);
});
