import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ProgressTracker, escapeIcons, idleView, statusView, thousands, turnOf } from '../status';

describe('ProgressTracker', () => {
  it('follows begin, report and end per token', () => {
    const t = new ProgressTracker();
    assert.equal(t.update('agentls-1', { kind: 'begin', title: 'agentls: agent turn 3' }), true);
    assert.equal(t.update('agentls-1', { kind: 'report', message: 'step 1: read a.go' }), true);
    assert.equal(t.update('agentls-2', { kind: 'begin', title: 'agentls: job 1: go test ./...' }), true);
    assert.deepEqual(
      t.running().map((w) => [w.token, w.title, w.message, w.turn]),
      [
        ['agentls-2', 'job 1: go test ./...', undefined, undefined],
        ['agentls-1', 'agent turn 3', 'step 1: read a.go', 3],
      ],
    );
    assert.equal(t.update('agentls-2', { kind: 'end', message: 'done' }), true);
    assert.equal(t.newest()?.turn, 3);
    assert.equal(t.update('agentls-1', { kind: 'end' }), true);
    assert.equal(t.newest(), undefined);
  });
  it('ignores reports and ends of unknown tokens, and junk', () => {
    const t = new ProgressTracker();
    assert.equal(t.update('x', { kind: 'report', message: 'm' }), false);
    assert.equal(t.update('x', { kind: 'end' }), false);
    assert.equal(t.update('x', undefined), false);
    assert.equal(t.running().length, 0);
  });
  it('numeric tokens and clear', () => {
    const t = new ProgressTracker();
    t.update(7, { kind: 'begin', title: 'work' });
    t.update('7', { kind: 'report', message: 'half', percentage: 50 });
    assert.deepEqual(t.newest(), { token: '7', title: 'work', message: 'half', percentage: 50, turn: undefined, seq: 1 });
    t.clear();
    assert.equal(t.newest(), undefined);
  });
});

describe('statusView', () => {
  it('is hidden with nothing running', () => {
    assert.equal(statusView([]), undefined);
  });
  it('shows the newest work and its step; a click cancels its turn', () => {
    const t = new ProgressTracker();
    t.update('a', { kind: 'begin', title: 'agentls: apply reply' });
    t.update('b', { kind: 'begin', title: 'agentls: agent turn 12' });
    t.update('b', { kind: 'report', message: 'step 2: shell `echo $(date)`' });
    const v = statusView(t.running());
    assert.deepEqual(v, {
      text: '$(sync~spin) agent turn 12: step 2: shell `echo \\$(date)` (+1)',
      tooltip: 'agentls\nagent turn 12: step 2: shell `echo $(date)`\napply reply\n\nClick to cancel agent turn 12.',
      turn: 12,
    });
  });
  it('clips long steps to one short line', () => {
    const t = new ProgressTracker();
    t.update('a', { kind: 'begin', title: 'agentls: job 4: make' });
    t.update('a', { kind: 'report', message: 'running for 3s,\n' + 'x'.repeat(200) });
    const v = statusView(t.running(), 30)!;
    assert.equal(v.text, '$(sync~spin) job 4: make: running for 3s, …');
    assert.equal(v.turn, undefined);
    assert.match(v.tooltip, /Click to show the agentls output/);
  });
  it('turnOf and escapeIcons', () => {
    assert.equal(turnOf('agentls: agent turn 5'), 5);
    assert.equal(turnOf('agentls: job 5: x'), undefined);
    assert.equal(escapeIcons('a $(x) b \\$(y) $(z~spin)'), 'a \\$(x) b \\$(y) \\$(z~spin)');
  });
});

describe('idleView', () => {
  it('shows the session totals once a turn ran', () => {
    assert.equal(idleView(undefined), undefined);
    assert.equal(idleView({ turns: 0 }), undefined);
    assert.deepEqual(idleView({ turns: 2, tokens: { prompt: 12000, completion: 345, estimated: true }, cost: null, summary: 'agentls: m at u; 2 turns' }), {
      text: '$(hubot) agentls: ~12,345 tokens',
      tooltip: 'agentls: m at u; 2 turns\n\nClick for the status.',
    });
    assert.equal(idleView({ turns: 1, tokens: { prompt: 1000, completion: 234 }, cost: 0.0039 })?.text, '$(hubot) agentls: 1,234 tokens, $0.0039');
  });
  it('thousands', () => {
    assert.equal(thousands(0), '0');
    assert.equal(thousands(999), '999');
    assert.equal(thousands(1234567), '1,234,567');
  });
});
