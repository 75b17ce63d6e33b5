// Bundles the extension (and, with --tests, the unit tests) with esbuild.
//   node scripts/build.mjs            dist/extension.js, minified
//   node scripts/build.mjs --watch    the same, unminified with source maps, rebuilt on change
//   node scripts/build.mjs --tests    out/unit/*.test.js for `node --test`
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  // VS Code 1.82 runs extensions on Node 18
  target: 'node18',
  logLevel: 'warning',
};

if (args.has('--tests')) {
  const dir = join(root, 'test', 'unit');
  const entryPoints = readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f));
  rmSync(join(root, 'out', 'unit'), { recursive: true, force: true });
  await esbuild.build({
    ...common,
    entryPoints,
    outdir: join(root, 'out', 'unit'),
    sourcemap: 'inline',
    // the units under test must not load `vscode`; failing the build here keeps them honest
    external: [],
  });
} else {
  const watch = args.has('--watch');
  const options = {
    ...common,
    entryPoints: [join(root, 'src', 'extension.ts')],
    outfile: join(root, 'dist', 'extension.js'),
    external: ['vscode'],
    minify: !watch,
    sourcemap: watch,
  };
  if (watch) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
    console.log('watching src/ for changes');
  } else {
    rmSync(join(root, 'dist'), { recursive: true, force: true });
    await esbuild.build(options);
  }
}
