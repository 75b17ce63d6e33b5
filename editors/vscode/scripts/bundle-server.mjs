// Copies an msl-lsp executable into server/, where the extension looks first after the
// msl.server.path setting, so that `npm run package` ships it inside the .vsix.
//   npm run bundle-server -- PATH/TO/msl-lsp      (or set MSL_LSP=PATH/TO/msl-lsp)
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2] ?? process.env.MSL_LSP;
if (!source) {
  console.error('usage: npm run bundle-server -- PATH/TO/msl-lsp   (or set MSL_LSP)');
  process.exit(2);
}
const from = resolve(process.cwd(), source);
let info;
try {
  info = statSync(from);
} catch {
  console.error(`bundle-server: ${from} does not exist`);
  process.exit(1);
}
if (!info.isFile()) {
  console.error(`bundle-server: ${from} is not a file`);
  process.exit(1);
}
// the name follows the binary: msl-lsp.exe stays an .exe for Windows packages
const name = from.toLowerCase().endsWith('.exe') ? 'msl-lsp.exe' : 'msl-lsp';
const to = join(root, 'server', name);
// copied under a temporary name first, so that a rejected file never replaces a good one
const partial = join(root, 'server', `.${name}.partial`);
mkdirSync(dirname(to), { recursive: true });
copyFileSync(from, partial);
chmodSync(partial, 0o755);

// Make sure what we ship is a working server. A build for another platform cannot start
// here; that is reported and allowed, but a binary that runs and is not msl-lsp is refused.
const run = spawnSync(partial, ['--version'], { encoding: 'utf8', timeout: 10000 });
if (run.error) {
  console.warn(`bundle-server: could not run ${from} here (${run.error.code ?? run.error.message}); copied it unchecked`);
} else if (run.status !== 0 || !run.stdout.startsWith('msl-lsp')) {
  rmSync(partial, { force: true });
  console.error(`bundle-server: ${from} --version did not answer like msl-lsp:\n${run.stdout}${run.stderr}`);
  process.exit(1);
}
renameSync(partial, to);
console.log(`bundled ${run.error ? from : `${run.stdout.trim()} from ${from}`} into ${to}`);
