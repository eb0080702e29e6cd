// package.json against the code: the commands it contributes are the ones
// the extension registers, and its settings are the server's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { CATEGORY, COMMANDS } from '../commands';
import { CLIENT_SETTINGS, SERVER_SETTINGS } from '../settings';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// The server's commands (DESIGN.md §6 and lsp/): what vscode-languageclient
// registers under these ids from the server's executeCommandProvider.
const serverCommands = [
  'agentls.ask',
  'agentls.applyReply',
  'agentls.cancel',
  'agentls.turn.undo',
  'agentls.turn.redo',
  'agentls.edit.undo',
  'agentls.edit.redo',
  'agentls.review.accept',
  'agentls.review.reject',
  'agentls.review.diff',
  'agentls.approve',
  'agentls.deny',
  'agentls.chat.open',
  'agentls.chat.send',
  'agentls.run',
  'agentls.jobs.list',
  'agentls.jobs.output',
  'agentls.jobs.kill',
  'agentls.trust',
];

// The server's own defaults (settings/settings.go Defaults): VS Code shows
// these, and sends none of them unless the user sets one.
const serverDefaults: Record<string, unknown> = {
  model: '',
  baseUrl: '',
  apiKeyEnv: 'OPENAI_API_KEY',
  toolFormat: 'markdown',
  tools: [],
  applyMode: 'apply',
  shellTimeout: 1200,
  commandAllowlist: [],
  commandDenylist: [],
  approvalPolicy: 'ask',
  approvalTimeout: 300,
  applyEditTimeout: 60,
  errorFormats: [],
  outputLimits: {},
  maxSteps: 30,
  thinking: 'auto',
  mcpServers: {},
  toolAllowlist: [],
  mcpReadOnly: [],
  mcpTimeout: 60,
  vision: 'auto',
  imageMaxSide: 1568,
  browserAllowlist: [],
  searchUrl: '',
  browserTimeout: 30,
  computerAllowlist: [],
  applyModel: {},
  applyModelFallback: false,
  embeddings: {},
  rules: [],
  prices: {},
  prompt: 'auto',
  temperature: null,
};

describe('package.json', () => {
  it('is the agentls extension', () => {
    assert.equal(pkg.name, 'agentls');
    assert.equal(pkg.publisher, 'agentls');
    assert.equal(pkg.main, './out/extension.js');
    assert.match(pkg.engines.vscode, /^\^1\.\d+/);
    assert.ok(pkg.dependencies['vscode-languageclient']);
  });

  it('contributes exactly the commands the extension registers', () => {
    const contributed = pkg.contributes.commands.map((c: { command: string; title: string; category: string }) => [
      c.command,
      c.title,
      c.category,
    ]);
    const registered = Object.values(COMMANDS).map((c) => [c.id, c.title, CATEGORY]);
    assert.deepEqual(contributed, registered);
  });

  it('gives palette commands ids of their own', () => {
    const ids = new Set<string>(Object.values(COMMANDS).map((c) => c.id));
    for (const c of serverCommands) {
      assert.equal(ids.has(c), false, `${c} is registered by vscode-languageclient`);
    }
  });

  it('covers every server command', () => {
    const used = new Set<string | undefined>(Object.values(COMMANDS).map((c) => ('server' in c ? c.server : undefined)));
    for (const c of serverCommands) {
      assert.ok(used.has(c), `no palette command runs ${c}`);
    }
  });

  it('menus name contributed commands', () => {
    const ids = new Set(Object.values(COMMANDS).map((c) => c.id));
    for (const items of Object.values(pkg.contributes.menus) as { command: string }[][]) {
      for (const m of items) {
        assert.ok(ids.has(m.command as never), m.command);
      }
    }
  });

  it('contributes the server settings with the server defaults', () => {
    const props = pkg.contributes.configuration.properties;
    const keys = Object.keys(props).map((k) => k.replace(/^agentls\./, ''));
    assert.deepEqual(keys.sort(), [...SERVER_SETTINGS, ...CLIENT_SETTINGS].sort());
    for (const key of SERVER_SETTINGS) {
      const p = props[`agentls.${key}`];
      assert.ok(p.markdownDescription || p.description, `${key} has no description`);
      assert.deepEqual(p.default, serverDefaults[key], `${key} default`);
    }
    assert.deepEqual(props['agentls.toolFormat'].enum, ['markdown', 'xml', 'tool']);
    assert.deepEqual(props['agentls.applyMode'].enum, ['apply', 'review']);
    assert.deepEqual(props['agentls.approvalPolicy'].enum, ['ask', 'deny', 'allow']);
    assert.deepEqual(props['agentls.thinking'].enum, ['auto', 'tagged']);
  });

  it('contributes every setting the server knows', () => {
    // The server declares its settings once, in settings/settings.go's
    // key table.
    const source = readFileSync(join(root, '..', '..', 'settings', 'settings.go'), 'utf8');
    const server = [...source.matchAll(/\{name: "([a-zA-Z]+)"/g)].map((m) => m[1]);
    assert.ok(server.length > 10, 'no key table in settings/settings.go');
    // saveDocuments is the extension's to set, not the user's.
    assert.deepEqual([...SERVER_SETTINGS].sort(), server.filter((k) => k !== 'saveDocuments').sort());
  });

  it('has no setting that holds a key', () => {
    for (const key of Object.keys(pkg.contributes.configuration.properties)) {
      assert.doesNotMatch(key, /apiKey$|token|secret|password/i, key);
    }
  });
});
