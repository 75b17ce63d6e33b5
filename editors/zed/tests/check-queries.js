// Compiles every query of the Zed extension against the tree-sitter-cpp grammar, checks
// that each query uses only capture names Zed gives a meaning to, and runs the queries
// over a sample shader to check the results listed in an expectations file. Given the
// node-types.json of another revision of the grammar, it also checks that every node
// type, token and field the queries name exists there.
//
// Usage: node check-queries.js LANGUAGE_DIR SAMPLE EXPECTATIONS GRAMMAR_WASM [NODE_TYPES]
// (web-tree-sitter must be resolvable, e.g. through NODE_PATH). Exits 1 on any failure.

'use strict';

const fs = require('fs');
const path = require('path');
const Parser = require('web-tree-sitter');

// Capture names per query file. For highlights Zed matches a theme style by the first
// dot-separated parts of the name, so only the first part is checked there.
const HIGHLIGHT_ROOTS = new Set([
  'attribute', 'boolean', 'comment', 'constant', 'constructor', 'embedded', 'emphasis', 'enum',
  'function', 'hint', 'keyword', 'label', 'link_text', 'link_uri', 'namespace', 'number', 'operator',
  'predictive', 'preproc', 'primary', 'property', 'punctuation', 'string', 'tag', 'text', 'title',
  'type', 'variable', 'variant',
]);
const CAPTURES = {
  'brackets.scm': ['open', 'close'],
  'indents.scm': ['indent', 'start', 'end', 'outdent'],
  'outline.scm': ['item', 'name', 'context', 'context.extra', 'annotation'],
  'textobjects.scm': ['function.around', 'function.inside', 'class.around', 'class.inside',
    'comment.around', 'comment.inside'],
  'injections.scm': ['injection.content', 'injection.language', 'content', 'language'],
  'overrides.scm': ['comment.inclusive', 'string'],
};

function captureProblem(file, name) {
  if (name.startsWith('_')) return null; // private to the query's predicates
  if (file === 'highlights.scm') {
    return HIGHLIGHT_ROOTS.has(name.split('.')[0]) ? null : `@${name} is not a highlight Zed styles`;
  }
  const allowed = CAPTURES[file];
  if (!allowed) return `${file} is not a query file Zed reads`;
  return allowed.includes(name) ? null : `@${name} means nothing to Zed in ${file}`;
}

// The node types, anonymous tokens and fields a query names, leaving out predicate
// arguments and the query language's own `_`, `ERROR` and `MISSING`.
function namesIn(source) {
  const names = { named: new Set(), anonymous: new Set(), fields: new Set() };
  const open = []; // for each open parenthesis: whether it starts a predicate
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const inPredicate = open.includes(true);
    if (source[i] === ';') {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if (source[i] === '"') {
      let j = i + 1;
      while (source[j] !== '"') j += source[j] === '\\' ? 2 : 1;
      if (!inPredicate) names.anonymous.add(JSON.parse(source.slice(i, j + 1)));
      i = j + 1;
    } else if (source[i] === '(') {
      const head = /^\(\s*(#?[A-Za-z_][\w.?!-]*)?/.exec(rest)[1] || '';
      open.push(head.startsWith('#'));
      if (head && !head.startsWith('#') && !inPredicate && !['_', 'ERROR', 'MISSING'].includes(head)) {
        names.named.add(head);
      }
      i += 1;
    } else if (source[i] === ')') {
      open.pop();
      i += 1;
    } else if (/^[@#]/.test(rest)) {
      i += /^[@#][\w.?!-]*/.exec(rest)[0].length;
    } else if (/^!?[a-z_]\w*:/.test(rest) && !inPredicate) {
      const field = /^!?([a-z_]\w*):/.exec(rest);
      names.fields.add(field[1]);
      i += field[0].length;
    } else if (/^![a-z_]\w*/.test(rest) && !inPredicate) {
      const field = /^!([a-z_]\w*)/.exec(rest);
      names.fields.add(field[1]);
      i += field[0].length;
    } else {
      i += 1;
    }
  }
  return names;
}

// What a grammar revision's node-types.json defines.
function namesDefinedBy(nodeTypes) {
  const defined = { named: new Set(), anonymous: new Set(), fields: new Set() };
  const visit = (entry) => {
    (entry.named ? defined.named : defined.anonymous).add(entry.type);
    for (const [field, spec] of Object.entries(entry.fields || {})) {
      defined.fields.add(field);
      (spec.types || []).forEach(visit);
    }
    (entry.children?.types || []).forEach(visit);
    (entry.subtypes || []).forEach(visit);
  };
  nodeTypes.forEach(visit);
  return defined;
}

// The highlight each node range ends up with: of all captures of a range, the one from
// the pattern that comes last in the file, which is the one Zed shows.
function winningHighlights(query, root) {
  const best = new Map();
  for (const match of query.matches(root)) {
    for (const capture of match.captures) {
      if (capture.name.startsWith('_')) continue;
      const key = `${capture.node.startIndex}:${capture.node.endIndex}`;
      const previous = best.get(key);
      if (!previous || match.pattern >= previous.pattern) {
        best.set(key, { pattern: match.pattern, name: capture.name });
      }
    }
  }
  return best;
}

// Outline entries as Zed builds them: the texts of @context and @name in source order,
// separated by a space.
function outlineEntries(query, root) {
  const entries = [];
  for (const match of query.matches(root)) {
    const item = match.captures.find((c) => c.name === 'item');
    if (!item) continue;
    const parts = match.captures
      .filter((c) => c.name === 'name' || c.name === 'context')
      .sort((a, b) => a.node.startIndex - b.node.startIndex)
      .map((c) => c.node.text.replace(/\s+/g, ' '));
    entries.push({ line: item.node.startPosition.row + 1, text: parts.join(' ') });
  }
  return entries;
}

// Every node (named or not) that starts on `line` and whose text is `text`.
function nodesWithText(root, line, text) {
  const found = [];
  const cursor = root.walk();
  let more = true;
  while (more) {
    const node = cursor.currentNode;
    if (node.startPosition.row + 1 === line && node.text === text) found.push(node);
    if (node.startPosition.row + 1 <= line && node.endPosition.row + 1 >= line && cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        more = false;
        break;
      }
    }
  }
  return found;
}

function readExpectations(file) {
  return fs.readFileSync(file, 'utf8').split('\n').flatMap((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) return [];
    const fields = line.split('\t');
    return [{ where: `${path.basename(file)}:${i + 1}`, kind: fields[0], line: Number(fields[1]), args: fields.slice(2) }];
  });
}

async function main() {
  const [languageDir, samplePath, expectationsPath, grammarWasm, nodeTypesPath] = process.argv.slice(2);
  if (!grammarWasm) {
    console.error('usage: node check-queries.js LANGUAGE_DIR SAMPLE EXPECTATIONS GRAMMAR_WASM [NODE_TYPES]');
    process.exit(2);
  }
  await Parser.init();
  const language = await Parser.Language.load(grammarWasm);
  const failures = [];
  const queries = {};

  const files = fs.readdirSync(languageDir).filter((f) => f.endsWith('.scm')).sort();
  for (const file of files) {
    const source = fs.readFileSync(path.join(languageDir, file), 'utf8');
    try {
      const query = language.query(source);
      for (const name of query.captureNames) {
        const problem = captureProblem(file, name);
        if (problem) failures.push(`${file}: ${problem}`);
      }
      queries[file] = query;
      console.log(`ok   ${file}: ${query.predicates.length} patterns compile`);
    } catch (error) {
      failures.push(`${file}: does not compile: ${error.message}`);
    }
  }
  if (nodeTypesPath) {
    const defined = namesDefinedBy(JSON.parse(fs.readFileSync(nodeTypesPath, 'utf8')));
    let count = 0;
    for (const file of files) {
      const used = namesIn(fs.readFileSync(path.join(languageDir, file), 'utf8'));
      for (const kind of ['named', 'anonymous', 'fields']) {
        for (const name of used[kind]) {
          count += 1;
          if (!defined[kind].has(name)) {
            const what = { named: 'node type', anonymous: 'token', fields: 'field' }[kind];
            failures.push(`${file}: ${what} ${JSON.stringify(name)} is not in ${nodeTypesPath}`);
          }
        }
      }
    }
    console.log(`ok   ${count} node types, tokens and fields named by the queries checked against ${nodeTypesPath}`);
  }
  for (const required of ['highlights.scm', 'brackets.scm', 'indents.scm', 'outline.scm']) {
    if (!files.includes(required)) failures.push(`${required} is missing`);
  }

  const parser = new Parser();
  parser.setLanguage(language);
  const tree = parser.parse(fs.readFileSync(samplePath, 'utf8'));
  const highlights = queries['highlights.scm'] && winningHighlights(queries['highlights.scm'], tree.rootNode);
  const outline = queries['outline.scm'] && outlineEntries(queries['outline.scm'], tree.rootNode);
  const sample = path.basename(samplePath);
  let checked = 0;

  for (const e of readExpectations(expectationsPath)) {
    checked += 1;
    if (e.kind === 'highlight' && highlights) {
      const [text, expected, occurrence] = e.args;
      // Distinct places on the line with this text, in source order; an occurrence
      // number picks one of them, otherwise every one must match.
      const places = [...new Map(nodesWithText(tree.rootNode, e.line, text)
        .map((n) => [n.startIndex, n])).values()].sort((a, b) => a.startIndex - b.startIndex);
      const nodes = occurrence ? places.slice(Number(occurrence) - 1, Number(occurrence)) : places;
      if (nodes.length === 0) {
        failures.push(`${e.where}: no \`${text}\` (occurrence ${occurrence || 'any'}) on ${sample}:${e.line}`);
        continue;
      }
      for (const node of nodes) {
        const got = highlights.get(`${node.startIndex}:${node.endIndex}`);
        if (!got || got.name !== expected) {
          failures.push(`${e.where}: \`${text}\` on ${sample}:${e.line} is @${got ? got.name : '(nothing)'}, expected @${expected}`);
        }
      }
    } else if (e.kind === 'outline' && outline) {
      const [text] = e.args;
      if (!outline.some((entry) => entry.line === e.line && entry.text === text)) {
        const there = outline.filter((entry) => entry.line === e.line).map((entry) => `"${entry.text}"`);
        failures.push(`${e.where}: no outline entry "${text}" on ${sample}:${e.line} (found ${there.join(', ') || 'none'})`);
      }
    } else if (e.kind === 'bracket' && queries['brackets.scm']) {
      const [open, close] = e.args;
      const pairs = queries['brackets.scm'].matches(tree.rootNode).map((m) => ({
        open: m.captures.find((c) => c.name === 'open')?.node,
        close: m.captures.find((c) => c.name === 'close')?.node,
      }));
      if (!pairs.some((p) => p.open && p.close && p.open.startPosition.row + 1 === e.line
        && p.open.text === open && p.close.text === close)) {
        failures.push(`${e.where}: no bracket pair ${open} ${close} opening on ${sample}:${e.line}`);
      }
    } else if (!['highlight', 'outline', 'bracket'].includes(e.kind)) {
      failures.push(`${e.where}: unknown expectation kind \`${e.kind}\``);
    }
  }
  if (failures.length) {
    for (const f of failures) console.error(`FAIL ${f}`);
    console.error(`${failures.length} problem(s); ${checked} expectations on ${sample}`);
    process.exit(1);
  }
  console.log(`ok   ${checked} expectations on ${sample}`);
}

main().catch((error) => {
  console.error(`FAIL ${error.stack || error}`);
  process.exit(1);
});
