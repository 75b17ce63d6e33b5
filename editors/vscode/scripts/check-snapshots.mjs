// Fails when a grammar snapshot fixture has no committed .snap file: vscode-tmgrammar-snap
// would silently write a new one and pass, so a missing snapshot would test nothing.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'grammar', 'snap');
const fixtures = readdirSync(dir).filter((f) => f.endsWith('.metal'));
const missing = fixtures.filter((f) => !existsSync(join(dir, `${f}.snap`)));
if (fixtures.length === 0 || missing.length > 0) {
  console.error(
    fixtures.length === 0
      ? `no snapshot fixtures in ${dir}`
      : `missing snapshots for: ${missing.join(', ')}\nrun "npm run test:grammar:update" and review the new .snap files`,
  );
  process.exit(1);
}
const orphans = readdirSync(dir).filter((f) => f.endsWith('.snap') && !fixtures.includes(f.slice(0, -'.snap'.length)));
if (orphans.length > 0) {
  console.error(`snapshots without a fixture: ${orphans.join(', ')}`);
  process.exit(1);
}
