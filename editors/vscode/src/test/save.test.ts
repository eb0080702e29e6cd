import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

import { OpenDocument, documentsToSave, samePath, saveEach, uriToPath } from '../save';

interface Doc extends OpenDocument {
  name: string;
}

function doc(name: string, fsPath: string | undefined, over: Partial<OpenDocument> = {}): Doc {
  return { name, fsPath, isDirty: true, isUntitled: false, isClosed: false, ...over };
}

describe('documentsToSave', () => {
  const a = doc('a', '/w/a.go');
  const clean = doc('clean', '/w/clean.go', { isDirty: false });
  const spaced = doc('spaced', '/w/dir with space/ü.go');
  const closed = doc('closed', '/w/closed.go', { isClosed: true });
  const untitled = doc('untitled', undefined, { isUntitled: true });
  const docs = [a, clean, spaced, closed, untitled];

  it('saves the dirty documents named, with the URIs the server gave', () => {
    const uris = ['file:///w/a.go', pathToFileURL('/w/dir with space/ü.go').href];
    const got = documentsToSave(uris, docs, 'linux');
    assert.deepEqual(
      got.map((t) => [t.uri, t.document.name]),
      [
        ['file:///w/a.go', 'a'],
        [uris[1], 'spaced'],
      ],
    );
  });
  it('skips clean, closed and unknown documents, other schemes and duplicates', () => {
    const uris = [
      'file:///w/clean.go',
      'file:///w/closed.go',
      'file:///w/not-open.go',
      'untitled:Untitled-1',
      'file:///w/a.go',
      'file:///w/./a.go',
      42,
    ];
    assert.deepEqual(
      documentsToSave(uris, docs, 'linux').map((t) => t.document.name),
      ['a'],
    );
  });
  it('matches a server URI in another spelling (encoded, case on Windows)', () => {
    assert.equal(documentsToSave(['file:///w/dir%20with%20space/%C3%BC.go'], docs, 'linux').length, 1);
    const win = doc('win', 'c:\\W\\A.go');
    assert.equal(documentsToSave(['file:///C:/w/a.go'], [win], 'win32').length, 1);
    assert.equal(documentsToSave(['file:///W/A.go'], [doc('x', '/w/a.go')], 'linux').length, 0);
  });
  it('takes a missing or malformed list as empty', () => {
    assert.deepEqual(documentsToSave(undefined, docs), []);
    assert.deepEqual(documentsToSave({ uris: [] }, docs), []);
  });
});

describe('uriToPath and samePath', () => {
  it('reads file URIs only', () => {
    assert.equal(uriToPath('file:///w/a%23b.go', 'linux'), '/w/a#b.go');
    assert.equal(uriToPath('untitled:x', 'linux'), undefined);
    assert.equal(uriToPath('file://host/share/x', 'linux'), undefined); // a remote host has no local path
  });
  it('compares as the file system would', () => {
    assert.equal(samePath('/w/./a.go', '/w/a.go', 'linux'), true);
    assert.equal(samePath('/w/A.go', '/w/a.go', 'linux'), false);
    assert.equal(samePath('/w/A.go', '/w/a.go', 'darwin'), true);
    assert.equal(samePath('C:\\w\\A.go', 'c:\\w\\a.go', 'win32'), true);
  });
});

describe('saveEach', () => {
  it('saves every document, whatever fails, and answers the saved URIs', async () => {
    const order: string[] = [];
    const targets = ['ok1', 'throws', 'refused', 'ok2'].map((name) => ({ uri: `file:///w/${name}`, document: name }));
    const got = await saveEach(targets, async (name) => {
      order.push(name);
      if (name === 'throws') {
        throw new Error('read-only file system');
      }
      return name !== 'refused';
    });
    assert.deepEqual(order, ['ok1', 'throws', 'refused', 'ok2']);
    assert.deepEqual(got.saved, ['file:///w/ok1', 'file:///w/ok2']);
    assert.deepEqual(got.failures, ['file:///w/throws: read-only file system', 'file:///w/refused: not saved']);
  });
  it('answers an empty list for nothing to save', async () => {
    assert.deepEqual(await saveEach([], async () => true), { saved: [], failures: [] });
  });
});
