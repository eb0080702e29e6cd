// The "agentls" settings: which of them go to the server, and how the
// server is started.
//
// Only the settings the user set (in user, workspace or folder settings)
// are sent. The server has defaults and environment fallbacks of its own
// (AGENTLS_MODEL, OPENAI_BASE_URL) and a project's .agentls/settings.json,
// which the editor's settings override key by key: sending VS Code's
// defaults for every key would hide them all.

import * as os from 'node:os';
import * as path from 'node:path';

/** The server's settings (DESIGN.md §6), in the "agentls" section. */
export const SERVER_SETTINGS = [
  'model',
  'baseUrl',
  'apiKeyEnv',
  'toolFormat',
  'tools',
  'applyMode',
  'shellTimeout',
  'commandAllowlist',
  'commandDenylist',
  'approvalPolicy',
  'approvalTimeout',
  'applyEditTimeout',
  'errorFormats',
  'outputLimits',
  'maxSteps',
  'thinking',
  'mcpServers',
  'toolAllowlist',
  'mcpReadOnly',
  'mcpTimeout',
  'vision',
  'imageMaxSide',
  'browserAllowlist',
  'searchUrl',
  'browserTimeout',
  'computerAllowlist',
  'applyModel',
  'applyModelFallback',
  'embeddings',
  'rules',
  'prices',
  'prompt',
  'temperature',
] as const;

export type ServerSetting = (typeof SERVER_SETTINGS)[number];

/** The extension's own settings, in the same section, never sent. */
export const CLIENT_SETTINGS = ['path', 'serverArgs', 'trace.server'] as const;

/** What vscode.WorkspaceConfiguration.inspect returns, as far as used here. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type Settings = Partial<Record<ServerSetting, unknown>>;

/**
 * userSettings returns the server settings the user set, each at its
 * most specific level (folder, then workspace, then user).
 */
export function userSettings(inspect: (key: ServerSetting) => Inspected | undefined): Settings {
  const out: Settings = {};
  for (const key of SERVER_SETTINGS) {
    const i = inspect(key);
    const value = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
    if (value !== undefined && value !== null) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * looksLikeAPIKey says whether apiKeyEnv holds a key rather than the name
 * of the variable holding it (the server refuses those too).
 */
export function looksLikeAPIKey(value: unknown): boolean {
  return typeof value === 'string' && (value.startsWith('sk-') || /[\s=]/.test(value));
}

/**
 * serverSettings is what goes to the server (initializationOptions,
 * workspace/configuration, didChangeConfiguration): the user's settings,
 * without an apiKeyEnv that is a key (never sent anywhere), and the
 * problems found.
 */
export function serverSettings(settings: Settings): { settings: Settings; problems: string[] } {
  const out: Settings = { ...settings };
  const problems: string[] = [];
  if (looksLikeAPIKey(out.apiKeyEnv)) {
    delete out.apiKeyEnv;
    problems.push(
      'agentls.apiKeyEnv holds what looks like an API key: give the NAME of the environment variable that holds the key (e.g. OPENAI_API_KEY), and remove the key from your settings',
    );
  }
  return { settings: out, problems };
}

/**
 * initializationOptions are the settings sent with initialize, and the
 * announcement that this client answers agentls/saveDocuments.
 */
export function initializationOptions(settings: Settings): Record<string, unknown> {
  return { ...settings, saveDocuments: true };
}

/**
 * removedSettings lists the keys set before and no longer: the server
 * keeps a value until told another, so these keep their old value until
 * the server restarts.
 */
export function removedSettings(before: Settings, after: Settings): ServerSetting[] {
  return SERVER_SETTINGS.filter((k) => before[k] !== undefined && after[k] === undefined);
}

/** The server's command line. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/**
 * serverCommand is the command that starts the server: agentls.path
 * ("agentls", found on PATH, by default), with "~" and
 * "${workspaceFolder}" expanded, and agentls.serverArgs.
 */
export function serverCommand(
  setting: unknown,
  args: unknown,
  workspaceFolder: string | undefined,
  home: string = os.homedir(),
): ServerCommand {
  let command = typeof setting === 'string' && setting.trim() !== '' ? setting.trim() : 'agentls';
  const expand = (s: string) => {
    if (s === '~' || s.startsWith('~/') || s.startsWith('~\\')) {
      s = path.join(home, s.slice(1));
    }
    if (workspaceFolder !== undefined) {
      s = s.split('${workspaceFolder}').join(workspaceFolder);
    }
    return s;
  };
  command = expand(command);
  const list = Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string').map(expand) : [];
  return { command, args: list };
}
