// Copies an msl-lsp executable into server/, where the extension looks first after the
// msl.server.path setting, so that `npm run package` ships it inside the .vsix.
//   npm run bundle-server -- PATH/TO/msl-lsp      (or set MSL_LSP=PATH/TO/msl-lsp)
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
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

// The platform and architecture an executable is for, from its headers (ELF, PE, 64-bit
// Mach-O), or undefined for anything else.
function builtFor(file) {
  const b = readFileSync(file);
  const arch = (m) => ({ 0x3e: 'x64', 0xb7: 'arm64', 0x01000007: 'x64', 0x0100000c: 'arm64', 0x8664: 'x64', 0xaa64: 'arm64' })[m];
  if (b.length >= 0x14 && b[0] === 0x7f && b.toString('latin1', 1, 4) === 'ELF') {
    return { platform: 'linux', arch: arch(b.readUInt16LE(0x12)) };
  }
  if (b.length >= 8 && b.readUInt32LE(0) === 0xfeedfacf) {
    return { platform: 'darwin', arch: arch(b.readUInt32LE(4)) };
  }
  if (b.length >= 0x40 && b.toString('latin1', 0, 2) === 'MZ') {
    const pe = b.readUInt32LE(0x3c);
    if (b.length >= pe + 6 && b.toString('latin1', pe, pe + 4) === 'PE\0\0') {
      return { platform: 'win32', arch: arch(b.readUInt16LE(pe + 4)) };
    }
  }
  return undefined;
}

// Make sure what we ship is a working server. A build for another platform cannot start
// here: it is copied unchecked (`cargo xtask dist` reads its headers). A binary for this
// machine that does not answer like msl-lsp is refused.
const target = builtFor(partial);
const native = target === undefined || (target.platform === process.platform && target.arch === process.arch);
const run = native
  ? spawnSync(partial, ['--version'], { encoding: 'utf8', timeout: 10000 })
  : { error: { code: `built for ${target.platform}-${target.arch}` } };
if (run.error) {
  console.warn(`bundle-server: could not run ${from} here (${run.error.code ?? run.error.message}); copied it unchecked`);
} else if (run.status !== 0 || !run.stdout.startsWith('msl-lsp')) {
  rmSync(partial, { force: true });
  console.error(`bundle-server: ${from} --version did not answer like msl-lsp:\n${run.stdout}${run.stderr}`);
  process.exit(1);
}
renameSync(partial, to);
console.log(`bundled ${run.error ? from : `${run.stdout.trim()} from ${from}`} into ${to}`);
