// The extension's commands: one per server command, under ids of their
// own. vscode-languageclient registers every command the server lists
// (agentls.ask, agentls.review.accept, ...) as a VS Code command that
// forwards its arguments, which is what the server's code actions run;
// the palette entries here ask for what is missing first (a prompt, a
// job, a scope) and so need other ids. package.json contributes exactly
// these (a unit test checks it).

export interface CommandInfo {
  /** The VS Code command id. */
  id: string;
  /** The palette title, shown as "Agent: <title>". */
  title: string;
  /** The server command it runs, if it runs one. */
  server?: string;
}

export const COMMANDS = {
  ask: { id: 'agentls.vscode.ask', title: 'Ask…', server: 'agentls.ask' },
  applyReply: { id: 'agentls.vscode.applyReply', title: 'Apply Reply', server: 'agentls.applyReply' },
  openChat: { id: 'agentls.vscode.openChat', title: 'Open Chat…', server: 'agentls.chat.open' },
  sendChat: { id: 'agentls.vscode.sendChat', title: 'Send Chat', server: 'agentls.chat.send' },
  cancel: { id: 'agentls.vscode.cancel', title: 'Cancel', server: 'agentls.cancel' },
  undo: { id: 'agentls.vscode.undo', title: 'Undo', server: 'agentls.turn.undo' },
  redo: { id: 'agentls.vscode.redo', title: 'Redo', server: 'agentls.turn.redo' },
  undoEdit: { id: 'agentls.vscode.undoEdit', title: 'Undo Edit', server: 'agentls.edit.undo' },
  redoEdit: { id: 'agentls.vscode.redoEdit', title: 'Redo Edit', server: 'agentls.edit.redo' },
  reviewAccept: { id: 'agentls.vscode.reviewAccept', title: 'Review Accept…', server: 'agentls.review.accept' },
  reviewReject: { id: 'agentls.vscode.reviewReject', title: 'Review Reject…', server: 'agentls.review.reject' },
  reviewDiff: { id: 'agentls.vscode.reviewDiff', title: 'Review Diff', server: 'agentls.review.diff' },
  run: { id: 'agentls.vscode.run', title: 'Run Command…', server: 'agentls.run' },
  jobs: { id: 'agentls.vscode.jobs', title: 'Jobs', server: 'agentls.jobs.list' },
  jobOutput: { id: 'agentls.vscode.jobOutput', title: 'Job Output…', server: 'agentls.jobs.output' },
  killJob: { id: 'agentls.vscode.killJob', title: 'Kill Job…', server: 'agentls.jobs.kill' },
  approve: { id: 'agentls.vscode.approve', title: 'Approve…', server: 'agentls.approve' },
  deny: { id: 'agentls.vscode.deny', title: 'Deny…', server: 'agentls.deny' },
  trust: { id: 'agentls.vscode.trust', title: 'Trust Workspace Settings', server: 'agentls.trust' },
  status: { id: 'agentls.vscode.status', title: 'Status', server: 'agentls.status' },
  showOutput: { id: 'agentls.vscode.showOutput', title: 'Show Output' },
  restart: { id: 'agentls.vscode.restart', title: 'Restart Server' },
} as const satisfies Record<string, CommandInfo>;

export type CommandName = keyof typeof COMMANDS;

/** The palette category: commands show as "Agent: Ask…". */
export const CATEGORY = 'Agent';

/** The URI scheme of the read-only job-output documents. */
export const JOB_SCHEME = 'agentls-job';
