// Checks of package.json, the grammar and the language configuration against each other
// and against the server's sources.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// the tests run from out/unit/ after bundling
const root = path.resolve(__dirname, '..', '..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
const pkg = readJson('package.json');
const contributes = pkg.contributes;
const properties: Record<string, Record<string, unknown>> = contributes.configuration.properties;

test('every setting has a description and a default', () => {
  for (const [key, schema] of Object.entries(properties)) {
    assert.ok(key.startsWith('msl.'), key);
    const text = (schema.markdownDescription ?? schema.description) as string | undefined;
    assert.ok(text && text.length > 20, `${key} needs a description`);
    assert.ok('default' in schema, `${key} needs a default`);
  }
  for (const key of [
    'msl.std',
    'msl.platform',
    'msl.includePaths',
    'msl.defines',
    'msl.rules',
    'msl.inlayHints.autoTypes',
    'msl.inlayHints.parameterNames',
    'msl.compiler.path',
    'msl.compiler.mode',
    'msl.compiler.timeoutSeconds',
    'msl.server.path',
    'msl.trace.server',
  ]) {
    assert.ok(key in properties, `${key} is contributed`);
  }
});

test('paths that start programs are machine settings, restricted in untrusted workspaces', () => {
  assert.equal(properties['msl.compiler.path'].scope, 'machine');
  assert.equal(properties['msl.server.path'].scope, 'machine');
  const trust = pkg.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, 'limited');
  for (const key of ['msl.compiler.path', 'msl.server.path', 'msl.includePaths']) {
    assert.ok(trust.restrictedConfigurations.includes(key), key);
  }
});

test('enums have the values the server expects', () => {
  assert.deepEqual(properties['msl.compiler.mode'].enum, ['onSave', 'onIdle', 'off']);
  assert.equal(properties['msl.compiler.mode'].default, 'onSave');
  assert.deepEqual(properties['msl.trace.server'].enum, ['off', 'messages', 'verbose']);
  assert.deepEqual(properties['msl.platform'].enum, ['auto', 'macos', 'ios', 'tvos', 'visionos']);
  const std = new RegExp(properties['msl.std'].pattern as string);
  for (const good of ['', 'metal3.2', '3.1', 'ios-metal2.4', 'macos-2.3']) {
    assert.ok(std.test(good), good);
  }
  for (const bad of ['metal', 'three', 'metal3', 'android-metal3.0']) {
    assert.ok(!std.test(bad), bad);
  }
});

test("commands are the extension's own, titled under MSL", () => {
  const ids = contributes.commands.map((c: { command: string }) => c.command);
  assert.deepEqual(ids.sort(), [
    'msl.vscode.expandMacro',
    'msl.vscode.openLogs',
    'msl.vscode.restartServer',
    'msl.vscode.selectContext',
    'msl.vscode.showAir',
    'msl.vscode.showSyntaxTree',
  ]);
  for (const c of contributes.commands) {
    assert.equal(c.category, 'MSL');
  }
  // the language client registers the server's commands under their own names
  const source = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');
  for (const id of ids) {
    assert.ok(source.includes(`'${id}'`), `${id} is registered in extension.ts`);
  }
  for (const serverCommand of ['msl.syntaxTree', 'msl.showAir', 'msl.expandMacro', 'msl.setContext']) {
    assert.ok(!ids.includes(serverCommand));
  }
});

test('the metal language, grammar and configuration files exist', () => {
  const lang = contributes.languages.find((l: { id: string }) => l.id === 'metal');
  assert.deepEqual(lang.extensions, ['.metal']);
  assert.ok(lang.aliases.includes('Metal') && lang.aliases.includes('MSL'));
  const grammar = contributes.grammars.find((g: { language: string }) => g.language === 'metal');
  assert.equal(grammar.scopeName, 'source.metal');
  assert.ok(fs.existsSync(path.join(root, grammar.path)));
  assert.ok(fs.existsSync(path.join(root, lang.configuration)));
});

test('every include of the grammar names a rule that exists', () => {
  const grammar = readJson('syntaxes/metal.tmLanguage.json');
  assert.equal(grammar.scopeName, 'source.metal');
  const names = new Set(Object.keys(grammar.repository));
  const used = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
    } else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'include' && typeof v === 'string') {
          assert.ok(v.startsWith('#'), `external include ${v}`);
          assert.ok(names.has(v.slice(1)), `missing rule ${v}`);
          used.add(v.slice(1));
        } else {
          walk(v);
        }
      }
    }
  };
  walk(grammar);
  for (const name of names) {
    assert.ok(used.has(name), `rule ${name} is never used`);
  }
});

test('the language configuration is valid', () => {
  const config = readJson('language-configuration.json');
  assert.equal(config.comments.lineComment, '//');
  assert.deepEqual(config.comments.blockComment, ['/*', '*/']);
  // `[[`/`]]` must not be a bracket pair of its own: `a[b[i]]` would then end in one `]]`
  // token and its two `[` would be marked unbalanced; as nested `[` pairs both forms match
  assert.ok(config.brackets.some((b: string[]) => b[0] === '[' && b[1] === ']'));
  assert.ok(!config.brackets.some((b: string[]) => b[0] === '[['));
  const rules = config.indentationRules;
  for (const key of Object.keys(rules)) {
    new RegExp(rules[key]);
  }
  const start = new RegExp(config.folding.markers.start);
  const end = new RegExp(config.folding.markers.end);
  assert.ok(start.test('#pragma region Lighting'));
  assert.ok(start.test('  #  ifdef DEBUG'));
  assert.ok(start.test('#if __METAL_VERSION__ >= 300'));
  assert.ok(!start.test('#include <metal_stdlib>'));
  assert.ok(end.test('#pragma endregion'));
  assert.ok(end.test('#endif // DEBUG'));
  const increase = new RegExp(rules.increaseIndentPattern);
  assert.ok(increase.test('kernel void k(device float *d [[buffer(0)]]) {'));
  assert.ok(!increase.test('float x = f(y);'));
  assert.ok(new RegExp(rules.decreaseIndentPattern).test('    }'));
});

// The server declares its semantic token legend in crates/msl-ide/src/semantic.rs.
const semanticSource = path.resolve(root, '..', '..', 'crates', 'msl-ide', 'src', 'semantic.rs');
test(
  'every semantic token type of the server has a TextMate fallback',
  { skip: !fs.existsSync(semanticSource) && 'the server sources are not next to the extension' },
  () => {
    const source = fs.readFileSync(semanticSource, 'utf8');
    const legend = /pub const TOKEN_TYPES: &\[&str\] = &\[([^\]]*)\]/.exec(source);
    assert.ok(legend, 'TOKEN_TYPES found');
    const types = [...legend[1].matchAll(/"([A-Za-z]+)"/g)].map((m) => m[1]);
    assert.ok(types.length >= 10);
    const scopes = contributes.semanticTokenScopes.find((s: { language: string }) => s.language === 'metal').scopes;
    for (const type of types) {
      assert.ok(type in scopes, `semantic token type ${type} maps to a scope`);
    }
    // custom types the server may declare need a contribution of their own
    const standard = new Set([
      'namespace', 'type', 'class', 'enum', 'interface', 'struct', 'typeParameter', 'parameter', 'variable',
      'property', 'enumMember', 'event', 'function', 'method', 'macro', 'keyword', 'modifier', 'comment',
      'string', 'number', 'regexp', 'operator', 'decorator', 'label',
    ]);
    const declared = new Set((contributes.semanticTokenTypes ?? []).map((t: { id: string }) => t.id));
    for (const type of types.filter((t) => !standard.has(t))) {
      assert.ok(declared.has(type), `custom token type ${type} is declared in semanticTokenTypes`);
    }
  },
);
