// The arguments of the server's commands, built from what the editor
// holds. Every agentls command takes one JSON object; this module decides
// what goes in it, without the vscode module, so it is tested in plain
// Node.

/** A zero-based LSP position; VS Code and the server agree on UTF-16. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/**
 * Target is the editor the command is about: its document's URI, whether
 * the server holds that document (a file; an untitled buffer is not sent
 * to the server), the selection when it is not empty, and its text.
 */
export interface Target {
  uri: string;
  attached: boolean;
  selection?: Range;
  selectedText?: string;
  /** The whole document's text, for a document the server does not hold. */
  text?: string;
}

export interface AskArgs {
  prompt: string;
  uri?: string;
  range?: Range;
}

/**
 * askArgs builds agentls.ask's argument: the prompt, and the document and
 * selection it is about. A selection the server cannot read (an untitled
 * buffer) goes into the prompt as text. An empty prompt asks nothing.
 */
export function askArgs(prompt: string | undefined, target: Target | undefined): AskArgs | undefined {
  if (prompt === undefined || prompt.trim() === '') {
    return undefined;
  }
  if (!target) {
    return { prompt };
  }
  if (!target.attached) {
    if (target.selection && target.selectedText) {
      return { prompt: `${prompt}\n\nSelected text:\n\`\`\`\n${target.selectedText}\n\`\`\`` };
    }
    return { prompt };
  }
  const args: AskArgs = { prompt, uri: target.uri };
  if (target.selection) {
    args.range = target.selection;
  }
  return args;
}

export type ApplyArgs = { uri: string; range?: Range } | { text: string };

/**
 * applyArgs builds agentls.applyReply's argument: the reply in the
 * selection or the whole document, named by URI when the server holds the
 * document (its unsaved text included), else sent as text.
 */
export function applyArgs(target: Target): ApplyArgs | undefined {
  if (target.attached) {
    return target.selection ? { uri: target.uri, range: target.selection } : { uri: target.uri };
  }
  const text = target.selection ? target.selectedText : target.text;
  if (text === undefined || text.trim() === '') {
    return undefined;
  }
  return { text };
}

/** parseId reads a positive whole number (a turn, job or request id). */
export function parseId(input: string | undefined): number | undefined {
  const s = (input ?? '').trim();
  if (!/^[0-9]+$/.test(s)) {
    return undefined;
  }
  const n = Number(s);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * validateId is an input box's check for an optional id: undefined when
 * the input is fine (empty, or a positive number), else what is wrong.
 */
export function validateId(input: string): string | undefined {
  if (input.trim() === '' || parseId(input) !== undefined) {
    return undefined;
  }
  return 'a positive number, or empty';
}

/** turnArgs is agentls.cancel's, agentls.turn.undo's and redo's argument. */
export function turnArgs(turn: number | undefined): { turn?: number } {
  return turn === undefined ? {} : { turn };
}

/** What agentls.review.accept, reject and diff act on. */
export type ReviewScope = { kind: 'file' } | { kind: 'all' } | { kind: 'hunk'; hunk: number };

export type ReviewArgs = { uri: string } | { all: true } | { hunk: number };

/**
 * reviewArgs builds a review command's argument. "This file" needs a
 * document the server holds; without one it is undefined.
 */
export function reviewArgs(scope: ReviewScope, target: Target | undefined): ReviewArgs | undefined {
  switch (scope.kind) {
    case 'all':
      return { all: true };
    case 'hunk':
      return { hunk: scope.hunk };
    case 'file':
      return target && target.attached ? { uri: target.uri } : undefined;
  }
}

/** The answers the approval commands give. */
export type ApprovalChoice = 'once' | 'always' | 'skip' | 'stop';

export interface ApprovalArgs {
  request?: number;
  always?: boolean;
  stop?: boolean;
}

/**
 * approvalArgs builds agentls.approve's or agentls.deny's argument; a
 * missing request means the one waiting.
 */
export function approvalArgs(choice: ApprovalChoice, request?: number): ApprovalArgs {
  const args: ApprovalArgs = {};
  if (request !== undefined) {
    args.request = request;
  }
  if (choice === 'always') {
    args.always = true;
  } else if (choice === 'stop') {
    args.stop = true;
  }
  return args;
}

/** isChatPath says whether a file is a chat document (.agentls/chat/NAME.md). */
export function isChatPath(path: string): boolean {
  return /[\\/]\.agentls[\\/]chat[\\/][^\\/]+\.md$/.test(path);
}

/**
 * validateChatName is the input box's check for a chat's name (the server
 * takes letters, digits, '.', '_' and '-', starting with a letter or a
 * digit; empty means "chat").
 */
export function validateChatName(input: string): string | undefined {
  const name = input.trim().replace(/\.md$/, '');
  if (name === '' || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    return undefined;
  }
  return "use letters, digits, '.', '_' and '-' (starting with a letter or a digit)";
}

/** chatOpenArgs is agentls.chat.open's argument. */
export function chatOpenArgs(input: string | undefined): { name?: string } {
  const name = (input ?? '').trim();
  return name === '' ? {} : { name };
}

/**
 * plainObject returns a command's argument when it is a plain JSON-like
 * object (given by a keybinding, a script or the status bar), else
 * undefined: a palette call has none, and a menu passes a URI object.
 */
export function plainObject(arg: unknown): Record<string, unknown> | undefined {
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) {
    return undefined;
  }
  const proto = Object.getPrototypeOf(arg);
  return proto === Object.prototype || proto === null ? (arg as Record<string, unknown>) : undefined;
}
