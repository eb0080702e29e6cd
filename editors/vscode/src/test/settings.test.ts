import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  Inspected,
  SERVER_SETTINGS,
  initializationOptions,
  looksLikeAPIKey,
  removedSettings,
  serverCommand,
  serverSettings,
  userSettings,
} from '../settings';

function inspector(values: Record<string, Inspected>) {
  return (key: string) => values[key];
}

describe('userSettings', () => {
  it('sends only what the user set, at its most specific level', () => {
    const got = userSettings(
      inspector({
        model: { globalValue: 'gpt-4.1', workspaceValue: 'qwen2.5-coder' },
        applyMode: { globalValue: 'review' },
        maxSteps: { globalValue: 10, workspaceValue: 20, workspaceFolderValue: 5 },
        commandAllowlist: { workspaceValue: ['go test'] },
        // VS Code's defaults are not the user's: the server has its own,
        // its environment fallbacks and the project's .agentls/settings.json.
        toolFormat: {},
        baseUrl: { globalValue: undefined },
        unknownKey: { globalValue: 1 },
      }),
    );
    assert.deepEqual(got, { model: 'qwen2.5-coder', applyMode: 'review', maxSteps: 5, commandAllowlist: ['go test'] });
  });
  it('keeps an explicit empty value (it clears the server value)', () => {
    assert.deepEqual(userSettings(inspector({ baseUrl: { globalValue: '' }, tools: { globalValue: [] } })), {
      baseUrl: '',
      tools: [],
    });
  });
  it('never includes the extension settings', () => {
    const all: Record<string, Inspected> = {};
    for (const k of ['path', 'serverArgs', 'trace.server', ...SERVER_SETTINGS]) {
      all[k] = { globalValue: 'x' };
    }
    assert.deepEqual(Object.keys(userSettings(inspector(all))).sort(), [...SERVER_SETTINGS].sort());
  });
});

describe('serverSettings', () => {
  it('passes good settings through', () => {
    assert.deepEqual(serverSettings({ apiKeyEnv: 'GROQ_API_KEY', model: 'm' }), {
      settings: { apiKeyEnv: 'GROQ_API_KEY', model: 'm' },
      problems: [],
    });
  });
  it('never sends a key given as apiKeyEnv', () => {
    const got = serverSettings({ apiKeyEnv: 'sk-proj-abc123', model: 'm' });
    assert.deepEqual(got.settings, { model: 'm' });
    assert.equal(got.problems.length, 1);
    assert.doesNotMatch(got.problems[0], /sk-proj-abc123/);
  });
  it('looksLikeAPIKey', () => {
    assert.equal(looksLikeAPIKey('OPENAI_API_KEY'), false);
    assert.equal(looksLikeAPIKey('sk-abc'), true);
    assert.equal(looksLikeAPIKey('KEY=abc'), true);
    assert.equal(looksLikeAPIKey('two words'), true);
    assert.equal(looksLikeAPIKey(undefined), false);
  });
});

describe('initializationOptions', () => {
  it('announces saveDocuments with the settings', () => {
    assert.deepEqual(initializationOptions({ model: 'm' }), { model: 'm', saveDocuments: true });
    assert.deepEqual(initializationOptions({}), { saveDocuments: true });
  });
});

describe('removedSettings', () => {
  it('lists the keys no longer set', () => {
    assert.deepEqual(removedSettings({ model: 'm', maxSteps: 3 }, { maxSteps: 4, applyMode: 'review' }), ['model']);
    assert.deepEqual(removedSettings({}, { model: 'm' }), []);
  });
});

describe('serverCommand', () => {
  const cases: { name: string; path: unknown; args: unknown; want: { command: string; args: string[] } }[] = [
    { name: 'default', path: undefined, args: undefined, want: { command: 'agentls', args: [] } },
    { name: 'blank', path: '  ', args: [], want: { command: 'agentls', args: [] } },
    { name: 'home', path: '~/go/bin/agentls', args: [], want: { command: '/home/u/go/bin/agentls', args: [] } },
    {
      name: 'workspace folder and args',
      path: '${workspaceFolder}/bin/agentls',
      args: ['serve', '--log', '${workspaceFolder}/agentls.log', 3],
      want: { command: '/w/bin/agentls', args: ['serve', '--log', '/w/agentls.log'] },
    },
    { name: 'absolute', path: '/usr/local/bin/agentls', args: 'serve', want: { command: '/usr/local/bin/agentls', args: [] } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(serverCommand(c.path, c.args, '/w', '/home/u'), c.want));
  }
  it('leaves ${workspaceFolder} without a folder', () => {
    assert.equal(serverCommand('${workspaceFolder}/a', [], undefined, '/h').command, '${workspaceFolder}/a');
  });
});
