import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  Target,
  applyArgs,
  approvalArgs,
  askArgs,
  chatOpenArgs,
  isChatPath,
  parseId,
  plainObject,
  reviewArgs,
  turnArgs,
  validateChatName,
  validateId,
} from '../args';

const uri = 'file:///w/a.go';
const selection = { start: { line: 2, character: 3 }, end: { line: 4, character: 0 } };
const file: Target = { uri, attached: true };
const fileSelected: Target = { uri, attached: true, selection, selectedText: 'x := 1\n' };
const untitled: Target = { uri: 'untitled:Untitled-1', attached: false, text: 'whole reply' };
const untitledSelected: Target = { ...untitled, selection, selectedText: 'selected reply' };

describe('askArgs', () => {
  const cases: { name: string; prompt: string | undefined; target: Target | undefined; want: unknown }[] = [
    { name: 'cancelled input box', prompt: undefined, target: file, want: undefined },
    { name: 'blank prompt', prompt: '  \n', target: file, want: undefined },
    { name: 'no editor', prompt: 'do it', target: undefined, want: { prompt: 'do it' } },
    { name: 'a file', prompt: 'do it', target: file, want: { prompt: 'do it', uri } },
    { name: 'a selection in a file', prompt: 'explain', target: fileSelected, want: { prompt: 'explain', uri, range: selection } },
    { name: 'an untitled buffer', prompt: 'do it', target: untitled, want: { prompt: 'do it' } },
    {
      name: 'a selection the server cannot read goes in the prompt',
      prompt: 'explain',
      target: untitledSelected,
      want: { prompt: 'explain\n\nSelected text:\n```\nselected reply\n```' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(askArgs(c.prompt, c.target), c.want));
  }
});

describe('applyArgs', () => {
  const cases: { name: string; target: Target; want: unknown }[] = [
    { name: 'a file: its text on the server, unsaved changes included', target: file, want: { uri } },
    { name: 'a selection in a file', target: fileSelected, want: { uri, range: selection } },
    { name: 'an untitled buffer: its text', target: untitled, want: { text: 'whole reply' } },
    { name: 'a selection in an untitled buffer', target: untitledSelected, want: { text: 'selected reply' } },
    { name: 'an empty untitled buffer', target: { uri: 'untitled:x', attached: false, text: ' \n' }, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyArgs(c.target), c.want));
  }
});

describe('ids', () => {
  const cases: [string | undefined, number | undefined][] = [
    ['3', 3],
    [' 12 ', 12],
    ['0', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['3a', undefined],
    ['', undefined],
    [undefined, undefined],
    ['99999999999999999999', undefined],
  ];
  for (const [input, want] of cases) {
    it(`parseId(${JSON.stringify(input)})`, () => assert.equal(parseId(input), want));
  }
  it('validateId takes empty and numbers only', () => {
    assert.equal(validateId(''), undefined);
    assert.equal(validateId('7'), undefined);
    assert.match(validateId('x') ?? '', /positive number/);
  });
  it('turnArgs', () => {
    assert.deepEqual(turnArgs(undefined), {});
    assert.deepEqual(turnArgs(4), { turn: 4 });
  });
});

describe('reviewArgs', () => {
  it('this file needs a file the server holds', () => {
    assert.deepEqual(reviewArgs({ kind: 'file' }, file), { uri });
    assert.equal(reviewArgs({ kind: 'file' }, untitled), undefined);
    assert.equal(reviewArgs({ kind: 'file' }, undefined), undefined);
  });
  it('all and one hunk', () => {
    assert.deepEqual(reviewArgs({ kind: 'all' }, undefined), { all: true });
    assert.deepEqual(reviewArgs({ kind: 'hunk', hunk: 2 }, file), { hunk: 2 });
  });
});

describe('approvalArgs', () => {
  const cases: [Parameters<typeof approvalArgs>[0], number | undefined, unknown][] = [
    ['once', undefined, {}],
    ['always', undefined, { always: true }],
    ['skip', 3, { request: 3 }],
    ['stop', 3, { request: 3, stop: true }],
  ];
  for (const [choice, request, want] of cases) {
    it(`${choice} ${request ?? ''}`, () => assert.deepEqual(approvalArgs(choice, request), want));
  }
});

describe('chats', () => {
  it('isChatPath', () => {
    assert.equal(isChatPath('/w/.agentls/chat/chat.md'), true);
    assert.equal(isChatPath('C:\\w\\.agentls\\chat\\fix-1.md'), true);
    assert.equal(isChatPath('/w/.agentls/chat/sub/x.md'), false); // directly in the folder, as the server wants
    assert.equal(isChatPath('/w/.agentls/chat/x.txt'), false);
    assert.equal(isChatPath('/w/agentls/chat/x.md'), false);
    assert.equal(isChatPath('/w/.agentls/chats/x.md'), false);
  });
  it('validateChatName follows the server', () => {
    for (const ok of ['', 'chat', 'fix-1', 'a.b_c', 'notes.md']) {
      assert.equal(validateChatName(ok), undefined, ok);
    }
    for (const bad of ['../x', 'a b', '.hidden', '-x', 'a/b']) {
      assert.notEqual(validateChatName(bad), undefined, bad);
    }
  });
  it('chatOpenArgs', () => {
    assert.deepEqual(chatOpenArgs(''), {});
    assert.deepEqual(chatOpenArgs(undefined), {});
    assert.deepEqual(chatOpenArgs(' fix '), { name: 'fix' });
  });
});

describe('plainObject', () => {
  class FakeUri {
    scheme = 'file';
  }
  it('takes JSON objects only', () => {
    assert.deepEqual(plainObject({ turn: 2 }), { turn: 2 });
    assert.deepEqual(plainObject(JSON.parse('{"job":1}')), { job: 1 });
    assert.equal(plainObject(undefined), undefined);
    assert.equal(plainObject(null), undefined);
    assert.equal(plainObject([1]), undefined);
    assert.equal(plainObject('x'), undefined);
    assert.equal(plainObject(new FakeUri()), undefined);
  });
});
