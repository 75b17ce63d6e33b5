// Turning the `msl.*` settings of VS Code into the object msl-lsp reads, both as
// `initializationOptions` and as the answer to `workspace/configuration` for `msl`.
// Free of `vscode` imports so that it can be unit-tested.

export type RuleLevel = 'error' | 'warning' | 'off';
export type CompilerMode = 'onSave' | 'onIdle' | 'off';
export type Platform = 'macos' | 'ios' | 'tvos' | 'visionos';

/** The settings object msl-lsp accepts (see docs/editors.md of the repository). */
export interface ServerSettings {
  std?: string;
  platform?: Platform;
  includePaths: string[];
  defines: string[];
  rules: Record<string, RuleLevel>;
  inlayHints: { autoTypes: boolean; parameterNames: boolean };
  compiler: { path: string | null; mode: CompilerMode; timeoutSeconds: number };
}

/** Reads one `msl.*` setting by its key below `msl` (e.g. `"inlayHints.autoTypes"`). */
export type SettingReader = (key: string) => unknown;

export interface ConversionContext {
  /** Whether the user trusts the workspace; without trust the compiler never runs. */
  readonly trusted: boolean;
  /** The first workspace folder, for `${workspaceFolder}` in include paths. */
  readonly workspaceFolder?: string;
  /** The user's home directory, for `~` and `${userHome}` in paths. */
  readonly homeDir?: string;
}

export interface Conversion {
  readonly settings: ServerSettings;
  /** Values that were ignored because they had the wrong shape, in words for the log. */
  readonly problems: string[];
}

/** How long one compiler run may take, unless configured otherwise (as in package.json). */
export const DEFAULT_COMPILER_TIMEOUT_SECONDS = 30;

/** The Metal version msl-lsp uses when none is configured. */
export const DEFAULT_METAL_VERSION = '4.1';

const PLATFORMS: readonly Platform[] = ['macos', 'ios', 'tvos', 'visionos'];
const LEVELS: readonly RuleLevel[] = ['error', 'warning', 'off'];
const MODES: readonly CompilerMode[] = ['onSave', 'onIdle', 'off'];
/** `metal3.2`, `3.2`, `macos-metal2.4`, `ios-2.4`. */
const STD_PATTERN = /^(?:(?:macos|ios|tvos|visionos)-)?(?:metal)?\d+\.\d+$/i;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim() : undefined;
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~` in a path setting. */
export function expandPathVariables(value: string, ctx: ConversionContext): string {
  let out = value;
  if (ctx.workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(ctx.workspaceFolder);
  }
  if (ctx.homeDir !== undefined) {
    out = out.split('${userHome}').join(ctx.homeDir);
    if (out === '~') {
      out = ctx.homeDir;
    } else if (out.startsWith('~/') || out.startsWith('~\\')) {
      out = ctx.homeDir + out.slice(1);
    }
  }
  return out;
}

function stringList(key: string, value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) {
    return [];
  }
  if (!Array.isArray(value)) {
    problems.push(`msl.${key} should be a list of strings; it was ignored.`);
    return [];
  }
  const out: string[] = [];
  for (const item of value) {
    if (typeof item === 'string' && item.trim() !== '') {
      out.push(item.trim());
    } else if (typeof item !== 'string') {
      problems.push(`msl.${key}: ${JSON.stringify(item)} is not a string and was ignored.`);
    }
  }
  return out;
}

function flag(key: string, value: unknown, fallback: boolean, problems: string[]): boolean {
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value !== 'boolean') {
    problems.push(`msl.${key} should be true or false; using ${fallback}.`);
    return fallback;
  }
  return value;
}

/**
 * Builds the server's settings from `msl.*` values.
 *
 * Empty values are left out so that the server's defaults (and `msl.toml` files) apply.
 * Values of the wrong shape are dropped and described in `problems`. In an untrusted
 * workspace `compiler.mode` is always `"off"`.
 */
export function toServerSettings(read: SettingReader, ctx: ConversionContext): Conversion {
  const problems: string[] = [];
  const settings: ServerSettings = {
    includePaths: [],
    defines: [],
    rules: {},
    inlayHints: { autoTypes: true, parameterNames: true },
    compiler: { path: null, mode: 'onSave', timeoutSeconds: DEFAULT_COMPILER_TIMEOUT_SECONDS },
  };

  const std = read('std');
  if (std !== undefined && std !== null && typeof std !== 'string') {
    problems.push('msl.std should be a string such as "metal3.2"; it was ignored.');
  } else {
    const value = text(std);
    if (value) {
      if (!STD_PATTERN.test(value)) {
        problems.push(`msl.std "${value}" does not look like a Metal version (e.g. "metal3.2"); the server decides.`);
      }
      settings.std = value;
    }
  }

  const platform = text(read('platform'))?.toLowerCase();
  if (platform && platform !== 'auto') {
    if ((PLATFORMS as readonly string[]).includes(platform)) {
      settings.platform = platform as Platform;
    } else {
      problems.push(`msl.platform "${platform}" is not one of ${PLATFORMS.join(', ')}; it was ignored.`);
    }
  }

  settings.includePaths = stringList('includePaths', read('includePaths'), problems).map((p) =>
    expandPathVariables(p, ctx),
  );

  const defines = stringList('defines', read('defines'), problems);
  for (const d of defines) {
    if (/^[A-Za-z_][A-Za-z0-9_]*(=.*)?$/s.test(d)) {
      settings.defines.push(d);
    } else {
      problems.push(`msl.defines: "${d}" is not NAME or NAME=VALUE; it was ignored.`);
    }
  }

  const rules = read('rules');
  if (rules !== undefined && rules !== null) {
    if (typeof rules !== 'object' || Array.isArray(rules)) {
      problems.push('msl.rules should be an object such as { "W1101": "off" }; it was ignored.');
    } else {
      for (const [code, level] of Object.entries(rules as Record<string, unknown>)) {
        const normalized = typeof level === 'string' ? level.trim().toLowerCase() : undefined;
        if (normalized !== undefined && (LEVELS as readonly string[]).includes(normalized)) {
          settings.rules[code.trim().toUpperCase()] = normalized as RuleLevel;
        } else {
          problems.push(`msl.rules: ${code} should be "error", "warning" or "off"; it was ignored.`);
        }
      }
    }
  }

  settings.inlayHints = {
    autoTypes: flag('inlayHints.autoTypes', read('inlayHints.autoTypes'), true, problems),
    parameterNames: flag('inlayHints.parameterNames', read('inlayHints.parameterNames'), true, problems),
  };

  const compilerPath = read('compiler.path');
  let path: string | null = null;
  if (typeof compilerPath === 'string') {
    const trimmed = compilerPath.trim();
    path = trimmed === '' ? null : expandPathVariables(trimmed, { trusted: ctx.trusted, homeDir: ctx.homeDir });
  } else if (compilerPath !== undefined && compilerPath !== null) {
    problems.push('msl.compiler.path should be a string; it was ignored.');
  }

  const modeValue = read('compiler.mode');
  let mode: CompilerMode = 'onSave';
  if (modeValue !== undefined && modeValue !== null) {
    const m = MODES.find((x) => typeof modeValue === 'string' && x.toLowerCase() === modeValue.trim().toLowerCase());
    if (m === undefined) {
      problems.push(`msl.compiler.mode ${JSON.stringify(modeValue)} is not onSave, onIdle or off; using onSave.`);
    } else {
      mode = m;
    }
  }
  const timeoutValue = read('compiler.timeoutSeconds');
  let timeoutSeconds = DEFAULT_COMPILER_TIMEOUT_SECONDS;
  if (timeoutValue !== undefined && timeoutValue !== null) {
    if (typeof timeoutValue === 'number' && Number.isFinite(timeoutValue) && timeoutValue > 0) {
      timeoutSeconds = Math.min(timeoutValue, 3600);
    } else {
      problems.push(
        `msl.compiler.timeoutSeconds ${JSON.stringify(timeoutValue)} is not a positive number; using ${DEFAULT_COMPILER_TIMEOUT_SECONDS}.`,
      );
    }
  }
  settings.compiler = { path, mode: ctx.trusted ? mode : 'off', timeoutSeconds };

  return { settings, problems };
}

/**
 * Answers one `workspace/configuration` item from the converted settings: `msl` gives the
 * whole object, `msl.compiler` a part of it (null when there is no such part), and any
 * other section `undefined`, meaning that VS Code should answer it as usual.
 */
export function configurationFor(section: string | undefined, settings: ServerSettings): unknown {
  if (section === 'msl') {
    return settings;
  }
  if (section === undefined || !section.startsWith('msl.')) {
    return undefined;
  }
  let node: unknown = settings;
  for (const part of section.slice(4).split('.')) {
    if (node === null || typeof node !== 'object' || !(part in (node as object))) {
      return null;
    }
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
