// agentls/saveDocuments: before the agent runs a command that reads the
// disk, the server asks the editor to save the documents whose text
// differs from their files. The editor saves the ones it holds with
// unsaved changes, one by one, and answers the URIs it saved; a document
// that cannot be saved is reported and does not stop the others.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** An open document, as much of it as the decision needs. */
export interface OpenDocument {
  /** The file's path (vscode.Uri.fsPath); undefined for other schemes. */
  fsPath: string | undefined;
  isDirty: boolean;
  isUntitled: boolean;
  isClosed: boolean;
}

/** uriToPath is a file URI's path, or undefined for other URIs. */
export function uriToPath(uri: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!/^file:/i.test(uri)) {
    return undefined;
  }
  try {
    return fileURLToPath(uri, { windows: platform === 'win32' });
  } catch {
    return undefined;
  }
}

/**
 * samePath compares two paths as the file system would: Windows and macOS
 * paths case-insensitively (their default file systems are), others
 * exactly; both cleaned first.
 */
export function samePath(a: string, b: string, platform: NodeJS.Platform = process.platform): boolean {
  const p = platform === 'win32' ? path.win32 : path.posix;
  let x = p.normalize(a);
  let y = p.normalize(b);
  if (platform === 'win32' || platform === 'darwin') {
    x = x.toLowerCase();
    y = y.toLowerCase();
  }
  return x === y;
}

/** A document to save, with the URI the server named it by. */
export interface SaveTarget<D> {
  uri: string;
  document: D;
}

/**
 * documentsToSave picks, for each URI the server names, the open document
 * of that file if it has unsaved changes. Untitled and closed documents,
 * URIs of no open document, and duplicates are skipped: there is nothing
 * to save, and the server checks the disk afterwards anyway.
 */
export function documentsToSave<D extends OpenDocument>(
  uris: unknown,
  documents: readonly D[],
  platform: NodeJS.Platform = process.platform,
): SaveTarget<D>[] {
  if (!Array.isArray(uris)) {
    return [];
  }
  const out: SaveTarget<D>[] = [];
  const taken = new Set<D>();
  for (const uri of uris) {
    if (typeof uri !== 'string') {
      continue;
    }
    const file = uriToPath(uri, platform);
    if (file === undefined) {
      continue;
    }
    const doc = documents.find(
      (d) => d.fsPath !== undefined && !d.isUntitled && !d.isClosed && samePath(d.fsPath, file, platform),
    );
    if (doc && doc.isDirty && !taken.has(doc)) {
      taken.add(doc);
      out.push({ uri, document: doc });
    }
  }
  return out;
}

export interface SaveResult {
  saved: string[];
  /** Why each document that was not saved was not, for the output channel. */
  failures: string[];
}

/**
 * saveEach saves the targets one after another with save (which resolves
 * to whether it saved: vscode.TextDocument.save) and never throws: a
 * failure is recorded and the next document is saved.
 */
export async function saveEach<D>(
  targets: readonly SaveTarget<D>[],
  save: (document: D) => PromiseLike<boolean>,
): Promise<SaveResult> {
  const result: SaveResult = { saved: [], failures: [] };
  for (const t of targets) {
    try {
      if (await save(t.document)) {
        result.saved.push(t.uri);
      } else {
        result.failures.push(`${t.uri}: not saved`);
      }
    } catch (err) {
      result.failures.push(`${t.uri}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return result;
}
