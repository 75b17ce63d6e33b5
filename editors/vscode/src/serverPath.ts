// Finding the msl-lsp executable. Nothing here touches the `vscode` module: the host
// (file system, environment, platform) comes in as a `DiscoveryHost`, so that every
// rule can be unit-tested on any operating system.

import * as path from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';

/** What discovery needs to know about the machine. */
export interface DiscoveryHost {
  /** `process.platform` of the machine the server runs on. */
  readonly platform: NodeJS.Platform;
  /** Environment variables (PATH, PATHEXT, HOME, ...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory, for `~` in paths. */
  readonly homeDir: string;
  /** True when `file` is a regular file this user may execute. */
  isExecutable(file: string): boolean;
  /** True when `file` exists and is a regular file, executable or not. */
  isFile(file: string): boolean;
}

/** Where a server was found. */
export type ServerSource = 'setting' | 'bundled' | 'path';

export interface ServerFound {
  readonly kind: 'found';
  readonly path: string;
  readonly source: ServerSource;
}

/** `msl.server.path` is set but names nothing usable: this is reported, never skipped. */
export interface SettingInvalid {
  readonly kind: 'invalid-setting';
  /** The setting as the user wrote it. */
  readonly configured: string;
  /** What it was resolved to (after `~` and PATH lookup), if anything. */
  readonly resolved: string | undefined;
  readonly reason: 'missing' | 'not-executable';
}

export interface ServerNotFound {
  readonly kind: 'not-found';
  /** Every location that was looked at, in order, for the log. */
  readonly searched: readonly string[];
}

export type Discovery = ServerFound | SettingInvalid | ServerNotFound;

/** The executable's file name on a platform. */
export function serverFileName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'msl-lsp.exe' : 'msl-lsp';
}

/** Path functions of the target platform, so Windows rules can be tested elsewhere. */
function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Reads an environment variable; on Windows names are case-insensitive (`Path`). */
export function envValue(host: Pick<DiscoveryHost, 'platform' | 'env'>, name: string): string | undefined {
  if (host.platform !== 'win32') {
    return host.env[name];
  }
  const wanted = name.toUpperCase();
  for (const [key, value] of Object.entries(host.env)) {
    if (key.toUpperCase() === wanted && value !== undefined) {
      return value;
    }
  }
  return undefined;
}

/** Replaces a leading `~` and `${userHome}` with the home directory. */
export function expandHome(value: string, homeDir: string): string {
  let out = value.split('${userHome}').join(homeDir);
  if (out === '~') {
    out = homeDir;
  } else if (out.startsWith('~/') || out.startsWith('~\\')) {
    out = homeDir + out.slice(1);
  }
  return out;
}

/** File-name extensions Windows tries for a bare command name. */
function windowsExtensions(host: DiscoveryHost): string[] {
  const raw = envValue(host, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD';
  const exts = raw
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  return exts.length > 0 ? exts : ['.EXE'];
}

/**
 * Looks a command name up in the directories of PATH, the way a shell would. Returns the
 * first executable match and records every candidate in `searched`.
 */
export function searchPath(name: string, host: DiscoveryHost, searched: string[] = []): string | undefined {
  const p = pathApi(host.platform);
  const dirs = (envValue(host, 'PATH') ?? '').split(p.delimiter).filter((d) => d.trim().length > 0);
  let candidates = [name];
  if (host.platform === 'win32' && p.extname(name) === '') {
    candidates = windowsExtensions(host).map((ext) => name + ext.toLowerCase());
  }
  for (const rawDir of dirs) {
    // Windows allows quoted entries in PATH
    const dir = rawDir.replace(/^"(.*)"$/, '$1');
    for (const candidate of candidates) {
      const full = p.join(dir, candidate);
      searched.push(full);
      if (host.isExecutable(full)) {
        return full;
      }
    }
  }
  return undefined;
}

/** True when a setting value is a bare command name rather than a path. */
function isBareName(value: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? !/[\\/]/.test(value) : !value.includes('/');
}

/**
 * Decides which msl-lsp to start:
 * 1. the `msl.server.path` setting (a path, or a bare name looked up on PATH);
 * 2. the binary shipped inside the extension, `server/msl-lsp` (`.exe` on Windows);
 * 3. `msl-lsp` found on PATH.
 *
 * @param setting       the value of `msl.server.path` (empty or undefined when unset)
 * @param extensionDir  the extension's install directory
 * @param workspaceDir  the first workspace folder, for a relative setting
 */
export function findServer(
  setting: string | undefined | null,
  extensionDir: string,
  host: DiscoveryHost,
  workspaceDir?: string,
): Discovery {
  const p = pathApi(host.platform);
  const configured = typeof setting === 'string' ? setting.trim() : '';
  const searched: string[] = [];

  if (configured !== '') {
    const expanded = expandHome(configured, host.homeDir);
    let resolved: string | undefined;
    if (isBareName(expanded, host.platform)) {
      resolved = searchPath(expanded, host, searched);
      if (resolved === undefined) {
        return { kind: 'invalid-setting', configured, resolved: undefined, reason: 'missing' };
      }
    } else {
      resolved = p.isAbsolute(expanded) ? expanded : p.resolve(workspaceDir ?? host.homeDir, expanded);
    }
    if (host.isExecutable(resolved)) {
      return { kind: 'found', path: resolved, source: 'setting' };
    }
    const reason = host.isFile(resolved) ? 'not-executable' : 'missing';
    return { kind: 'invalid-setting', configured, resolved, reason };
  }

  const bundled = p.join(extensionDir, 'server', serverFileName(host.platform));
  searched.push(bundled);
  if (host.isExecutable(bundled)) {
    return { kind: 'found', path: bundled, source: 'bundled' };
  }

  const onPath = searchPath(serverFileName(host.platform), host, searched);
  if (onPath !== undefined) {
    return { kind: 'found', path: onPath, source: 'path' };
  }
  return { kind: 'not-found', searched };
}

/** A one-line explanation of a failed discovery, for notifications and the log. */
export function describeFailure(result: SettingInvalid | ServerNotFound): string {
  if (result.kind === 'invalid-setting') {
    const where =
      result.resolved !== undefined && result.resolved !== result.configured
        ? `"${result.configured}" (${result.resolved})`
        : `"${result.configured}"`;
    return result.reason === 'not-executable'
      ? `msl.server.path points to ${where}, which is not executable.`
      : `msl.server.path points to ${where}, which does not exist.`;
  }
  return (
    'The msl-lsp language server was not found: it is not bundled with this extension and not on PATH. ' +
    'Install it with `cargo install --path crates/msl-lsp` from the msl repository, or set msl.server.path.'
  );
}

/** The real machine. */
export function nodeHost(): DiscoveryHost {
  const isFile = (file: string): boolean => {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  return {
    platform: process.platform,
    env: process.env,
    homeDir: os.homedir(),
    isFile,
    isExecutable(file: string): boolean {
      if (!isFile(file)) {
        return false;
      }
      if (process.platform === 'win32') {
        return true;
      }
      try {
        fs.accessSync(file, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Gives the bundled server its execute bits back when the archive it came in lost them.
 * Does nothing on Windows, when the file is absent, or when it is already executable.
 */
export function ensureExecutable(file: string): void {
  if (process.platform === 'win32') {
    return;
  }
  try {
    const mode = fs.statSync(file).mode;
    if ((mode & 0o111) !== 0o111) {
      fs.chmodSync(file, mode | 0o755);
    }
  } catch {
    // absent or not ours to change: discovery reports what it finds
  }
}
