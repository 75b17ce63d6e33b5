// What the status bar item says, as a pure function of the server's state, the settings
// and what the server last reported in an `msl/status` notification.

import { DEFAULT_METAL_VERSION } from './settings';

export type ServerState = 'starting' | 'running' | 'stopped' | 'error';

/** The parameters of the server's `msl/status` notification. */
export interface ServerStatus {
  std: string;
  platform: string;
  compiler: { path: string; version: string } | null;
  /** When the server runs the compiler, as it understood the settings. */
  compilerMode?: string;
  /** Open files analysed inside a unit that includes them: file URI to includer URI. */
  contexts?: Record<string, string>;
}

export interface StatusInput {
  state: ServerState;
  /** `msl.std` as configured (may be empty). */
  configuredStd?: string;
  /** `msl.platform` as configured (may be empty or "auto"). */
  configuredPlatform?: string;
  /** The last `msl/status` the server sent, if any; it wins over the settings. */
  server?: ServerStatus;
  /** The executable in use and how it was found. */
  serverPath?: string;
  serverSource?: string;
  /** Why the server is not running, for the error state. */
  detail?: string;
  /** Whether the workspace is trusted (the compiler is off otherwise). */
  trusted: boolean;
  /** `msl.compiler.mode` as configured. */
  compilerMode?: string;
  /** The URI of the active editor's document, if any. */
  activeUri?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** Which background the item gets: none, warning or error. */
  severity: 'none' | 'warning' | 'error';
}

const PLATFORM_NAMES: Record<string, string> = {
  macos: 'macOS',
  ios: 'iOS',
  tvos: 'tvOS',
  visionos: 'visionOS',
};

/** "Metal 3.2" from any spelling msl accepts ("metal3.2", "3.2", "ios-metal3.2"). */
export function metalVersionLabel(std: string | undefined): string {
  const value = std?.trim();
  if (!value) {
    return `Metal ${DEFAULT_METAL_VERSION}`;
  }
  const m = /^(?:(?:macos|ios|tvos|visionos)-)?(?:metal)?(\d+(?:\.\d+)*)$/i.exec(value);
  return m === null ? `Metal ${value}` : `Metal ${m[1]}`;
}

/** The platform named by a `std` prefix ("ios-metal2.4") or a platform value. */
export function platformLabel(std: string | undefined, platform: string | undefined): string | undefined {
  const p = platform?.trim().toLowerCase();
  if (p && p !== 'auto') {
    return PLATFORM_NAMES[p] ?? platform;
  }
  const prefix = /^(macos|ios|tvos|visionos)-/i.exec(std?.trim() ?? '');
  return prefix === null ? undefined : PLATFORM_NAMES[prefix[1].toLowerCase()];
}

const STATE_ICONS: Record<ServerState, string> = {
  starting: '$(loading~spin)',
  running: '$(check)',
  stopped: '$(debug-stop)',
  error: '$(error)',
};

const STATE_WORDS: Record<ServerState, string> = {
  starting: 'starting',
  running: 'running',
  stopped: 'stopped',
  error: 'not running (error)',
};

export function statusView(input: StatusInput): StatusView {
  const std = input.server?.std || input.configuredStd;
  const version = metalVersionLabel(std);
  const platform = platformLabel(std, input.server?.platform || input.configuredPlatform);
  const lines: string[] = [`MSL language server: ${STATE_WORDS[input.state]}`];
  if (input.detail) {
    lines.push(input.detail);
  }
  lines.push(`Metal version: ${version.slice('Metal '.length)}${std ? '' : ' (default)'}`);
  if (platform) {
    lines.push(`Platform: ${platform}`);
  }
  if (!input.trusted) {
    lines.push('Compiler: off (the workspace is not trusted)');
  } else if (input.server !== undefined) {
    const c = input.server.compiler;
    if (input.server.compilerMode === 'off') {
      lines.push('Compiler: off');
    } else if (c === null) {
      lines.push('Compiler: none found');
    } else {
      const details = [c.version, input.server.compilerMode].filter((x) => x).join(', ');
      lines.push(`Compiler: ${c.path}${details ? ` (${details})` : ''}`);
    }
  } else if (input.compilerMode === 'off') {
    lines.push('Compiler: off');
  }
  const includer = input.activeUri === undefined ? undefined : input.server?.contexts?.[input.activeUri];
  if (includer !== undefined) {
    lines.push(`Context: this file is analysed as included by ${baseName(includer)}`);
  }
  if (input.serverPath) {
    lines.push(`Server: ${input.serverPath}${input.serverSource ? ` (${input.serverSource})` : ''}`);
  }
  lines.push('Click to open the logs.');
  return {
    text: `${STATE_ICONS[input.state]} ${version}`,
    tooltip: lines.join('\n'),
    severity: input.state === 'error' ? 'error' : input.state === 'stopped' ? 'warning' : 'none',
  };
}

/** Checks the shape of an `msl/status` notification; anything malformed yields undefined. */
export function parseServerStatus(params: unknown): ServerStatus | undefined {
  if (params === null || typeof params !== 'object') {
    return undefined;
  }
  const p = params as Record<string, unknown>;
  if (typeof p.std !== 'string' || typeof p.platform !== 'string') {
    return undefined;
  }
  let compiler: ServerStatus['compiler'] = null;
  if (p.compiler !== null && p.compiler !== undefined) {
    const c = p.compiler as Record<string, unknown>;
    if (typeof c !== 'object' || typeof c.path !== 'string') {
      return undefined;
    }
    compiler = { path: c.path, version: typeof c.version === 'string' ? c.version : '' };
  }
  const status: ServerStatus = { std: p.std, platform: p.platform, compiler };
  if (typeof p.compilerMode === 'string') {
    status.compilerMode = p.compilerMode;
  }
  if (p.contexts !== null && typeof p.contexts === 'object') {
    const contexts: Record<string, string> = {};
    for (const [file, includer] of Object.entries(p.contexts as Record<string, unknown>)) {
      if (typeof includer === 'string') {
        contexts[file] = includer;
      }
    }
    status.contexts = contexts;
  }
  return status;
}

/** The last segment of a URI or path, decoded. */
export function baseName(uri: string): string {
  const last = uri.split('/').filter((x) => x !== '').pop() ?? uri;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
