// agentls for VS Code: starts the agentls language server for the files
// of the workspace and puts its commands in the command palette.
//
// The server does the work; the extension only asks and shows. Edits come
// as workspace/applyEdit (one undo each), approvals as
// window/showMessageRequest (buttons), chats and diffs as
// window/showDocument, progress as $/progress: vscode-languageclient
// handles all of these. The extension adds what the library cannot know:
// palette commands that ask for a prompt, a job or a scope; the
// agentls/saveDocuments request; a status-bar item that cancels the
// running turn; job output as read-only documents; and settings sent
// without the ones the user never set.

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

import {
  ApprovalChoice,
  ReviewScope,
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
} from './args';
import { COMMANDS, JOB_SCHEME } from './commands';
import { Job, jobItems, outputText, parseJobs } from './jobs';
import { documentsToSave, saveEach } from './save';
import {
  SERVER_SETTINGS,
  Settings,
  initializationOptions,
  removedSettings,
  serverCommand,
  serverSettings,
  userSettings,
} from './settings';
import { ProgressTracker, ProgressValue, SessionStatus, StatusView, Work, idleView, statusView } from './status';

const SECTION = 'agentls';
const SAVE_DOCUMENTS = 'agentls/saveDocuments';

let extension: Extension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  extension = new Extension(context);
  // Not awaited: activation (and every other extension's) does not wait
  // for the server; the commands do.
  void extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}

/** The outcome of one server command: ok false when it was refused. */
interface Outcome {
  ok: boolean;
  result?: unknown;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  return String(err);
}

class Extension {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly tracker = new ProgressTracker();
  /** The session's totals (agentls.status), shown while no work runs. */
  private idle: StatusView | undefined;
  /** The settings last sent to the server. */
  private sent: Settings = {};
  /** The settings problems already shown, so each is shown once. */
  private readonly warned = new Set<string>();
  /** Job output documents' text, by URI path. */
  private readonly jobText = new Map<string, string>();
  private readonly jobChanged = new vscode.EventEmitter<vscode.Uri>();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('agentls');
    this.status = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 10);
    this.status.name = 'agentls';
    context.subscriptions.push(this.output, this.status, this.jobChanged);
    context.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(JOB_SCHEME, {
        onDidChange: this.jobChanged.event,
        provideTextDocumentContent: (uri) =>
          this.jobText.get(uri.path) ?? 'agentls: this job\'s output is not loaded: run "Agent: Job Output…"',
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
    );
    this.registerCommands();
  }

  // -------------------------------------------------------------------------
  // The client

  /** start starts the server; a failure is shown, not thrown. */
  start(): Promise<void> {
    this.starting = this.startClient();
    return this.starting;
  }

  private async startClient(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const config = vscode.workspace.getConfiguration(SECTION);
    const cmd = serverCommand(config.get('path'), config.get('serverArgs'), folder);
    // No transport: with TransportKind.stdio the library would add a
    // --stdio flag, which agentls (stdio by default) does not take.
    const executable = { command: cmd.command, args: cmd.args, options: { cwd: folder } };
    const serverOptions: ServerOptions = { run: executable, debug: executable };
    const settings = this.currentSettings();
    this.sent = settings;
    const clientOptions: LanguageClientOptions = {
      // Every file: the agent reads and edits any of them, and a reply to
      // apply may sit in any buffer.
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      // The server says what matters with showMessage; its log stays in
      // the output channel without a notification of its own.
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: initializationOptions(settings),
      middleware: {
        handleWorkDoneProgress: (token, params, next) => {
          if (this.tracker.update(token, params as ProgressValue)) {
            this.renderStatus();
            if ((params as ProgressValue)?.kind === 'end' && this.tracker.running().length === 0) {
              void this.refreshIdle(); // the session's totals, once its work is done
            }
          }
          next(token, params);
        },
        workspace: {
          // The server pulls section "agentls": answer the settings the
          // user set, without the extension's own (path, serverArgs).
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) {
              return result;
            }
            return params.items.map((item, i) => (item.section === SECTION ? this.currentSettings() : result[i]));
          },
        },
      },
    };
    const client = new LanguageClient('agentls', 'agentls', serverOptions, clientOptions);
    client.onRequest(SAVE_DOCUMENTS, (params: { uris?: unknown }) => this.saveDocuments(params));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.tracker.clear();
        this.renderStatus();
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.output.appendLine(`agentls: cannot start ${cmd.command}: ${errorMessage(err)}`);
      const choice = await vscode.window.showErrorMessage(
        `agentls: cannot start the server "${cmd.command}": ${errorMessage(err)}. Install it (go install github.com/agentls/agentls/cmd/agentls@latest) or set agentls.path.`,
        'Open Settings',
        'Show Output',
      );
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'agentls.path');
      } else if (choice === 'Show Output') {
        this.output.show(true);
      }
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.tracker.clear();
    this.renderStatus();
    if (client && client.state !== State.Stopped) {
      try {
        await client.stop();
      } catch (err) {
        this.output.appendLine(`agentls: stopping the server: ${errorMessage(err)}`);
      }
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** running returns the client once it runs, or says why it does not. */
  private async running(): Promise<LanguageClient | undefined> {
    await this.starting;
    const client = this.client;
    if (client && client.state === State.Running) {
      return client;
    }
    const choice = await vscode.window.showErrorMessage('agentls is not running.', 'Restart Server', 'Show Output');
    if (choice === 'Restart Server') {
      await this.restart();
    } else if (choice === 'Show Output') {
      this.output.show(true);
    }
    return undefined;
  }

  /**
   * execute runs one server command with its one object argument. A
   * refusal is shown (the server says why) and reported as not ok.
   */
  private async execute(command: string, args: object): Promise<Outcome> {
    const client = await this.running();
    if (!client) {
      return { ok: false };
    }
    try {
      const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
      return { ok: true, result };
    } catch (err) {
      void vscode.window.showErrorMessage(`agentls: ${command}: ${errorMessage(err)}`);
      return { ok: false };
    }
  }

  // -------------------------------------------------------------------------
  // Settings

  private currentSettings(): Settings {
    const config = vscode.workspace.getConfiguration(SECTION);
    const { settings, problems } = serverSettings(userSettings((key) => config.inspect(key)));
    for (const p of problems) {
      if (!this.warned.has(p)) {
        this.warned.add(p);
        void vscode.window.showWarningMessage(p);
      }
    }
    return settings;
  }

  private async configurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (e.affectsConfiguration('agentls.path') || e.affectsConfiguration('agentls.serverArgs')) {
      const choice = await vscode.window.showInformationMessage(
        'agentls: the server command changed. Restart the server to use it?',
        'Restart Server',
      );
      if (choice === 'Restart Server') {
        await this.restart();
      }
      return;
    }
    if (!SERVER_SETTINGS.some((k) => e.affectsConfiguration(`${SECTION}.${k}`))) {
      return;
    }
    const client = this.client;
    if (!client || client.state !== State.Running) {
      return;
    }
    const next = this.currentSettings();
    const removed = removedSettings(this.sent, next);
    this.sent = next;
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: next } });
    if (removed.length > 0) {
      const names = removed.map((k) => `agentls.${k}`).join(', ');
      const choice = await vscode.window.showInformationMessage(
        `agentls: ${names} no longer set; the server keeps the value it has until it restarts.`,
        'Restart Server',
      );
      if (choice === 'Restart Server') {
        await this.restart();
      }
    }
  }

  // -------------------------------------------------------------------------
  // What the server asks and reports

  /**
   * saveDocuments answers agentls/saveDocuments: save the documents named
   * that have unsaved changes, one by one; one that cannot be saved is
   * noted in the output channel and the others are still saved.
   */
  private async saveDocuments(params: { uris?: unknown } | undefined): Promise<{ saved: string[] }> {
    const docs = vscode.workspace.textDocuments.map((d) => ({
      fsPath: d.uri.scheme === 'file' ? d.uri.fsPath : undefined,
      isDirty: d.isDirty,
      isUntitled: d.isUntitled,
      isClosed: d.isClosed,
      document: d,
    }));
    const targets = documentsToSave(params?.uris, docs);
    const result = await saveEach(targets, (d) => d.document.save());
    for (const f of result.failures) {
      this.output.appendLine(`agentls: could not save ${f}`);
    }
    return { saved: result.saved };
  }

  /** refreshIdle asks the server for the session's totals, shown while no work runs. */
  private async refreshIdle(): Promise<void> {
    const client = this.client;
    if (!client) {
      return;
    }
    try {
      this.idle = idleView(
        (await client.sendRequest(ExecuteCommandRequest.type, { command: COMMANDS.status.server, arguments: [{ quiet: true }] })) as SessionStatus,
      );
    } catch {
      return; // an older server without agentls.status: no totals
    }
    this.renderStatus();
  }

  private renderStatus(): void {
    const view = statusView(this.tracker.running());
    if (!view) {
      if (this.idle) {
        this.status.text = this.idle.text;
        this.status.tooltip = this.idle.tooltip;
        this.status.command = { title: 'Status', command: COMMANDS.status.id };
        this.status.show();
        return;
      }
      this.status.hide();
      return;
    }
    this.status.text = view.text;
    this.status.tooltip = view.tooltip;
    this.status.command =
      view.turn !== undefined
        ? { title: 'Cancel', command: COMMANDS.cancel.id, arguments: [{ turn: view.turn }] }
        : { title: 'Show Output', command: COMMANDS.showOutput.id };
    this.status.show();
  }

  // -------------------------------------------------------------------------
  // Commands

  private registerCommands(): void {
    const handlers: Record<keyof typeof COMMANDS, (arg?: unknown) => unknown> = {
      ask: (arg) => this.ask(arg),
      applyReply: () => this.applyReply(),
      openChat: (arg) => this.openChat(arg),
      sendChat: () => this.sendChat(),
      cancel: (arg) => this.cancel(arg),
      undo: (arg) => this.execute(COMMANDS.undo.server, plainObject(arg) ?? turnArgs(undefined)),
      redo: (arg) => this.execute(COMMANDS.redo.server, plainObject(arg) ?? turnArgs(undefined)),
      undoEdit: (arg) => this.execute(COMMANDS.undoEdit.server, plainObject(arg) ?? {}),
      redoEdit: (arg) => this.execute(COMMANDS.redoEdit.server, plainObject(arg) ?? {}),
      reviewAccept: (arg) => this.review(COMMANDS.reviewAccept.server, 'Accept', arg),
      reviewReject: (arg) => this.review(COMMANDS.reviewReject.server, 'Reject', arg),
      reviewDiff: (arg) => this.review(COMMANDS.reviewDiff.server, 'Show the diff of', arg),
      run: (arg) => this.run(arg),
      jobs: () => this.jobs(),
      jobOutput: (arg) => this.jobOutput(arg),
      killJob: (arg) => this.killJob(arg),
      approve: (arg) => this.approval(true, arg),
      deny: (arg) => this.approval(false, arg),
      trust: (arg) => this.execute(COMMANDS.trust.server, plainObject(arg) ?? {}),
      // The server shows the status line itself; the item is refreshed too.
      status: async () => {
        await this.execute(COMMANDS.status.server, {});
        await this.refreshIdle();
      },
      showOutput: () => this.output.show(true),
      restart: () => this.restart(),
    };
    for (const [name, handler] of Object.entries(handlers)) {
      const id = COMMANDS[name as keyof typeof COMMANDS].id;
      this.context.subscriptions.push(vscode.commands.registerCommand(id, handler));
    }
  }

  /**
   * target is the active editor's document and selection. A file is held
   * by the server (it is named by URI); another document (untitled, a
   * diff, output) is not, and its text is sent instead.
   */
  private target(): Target | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      return undefined;
    }
    const doc = editor.document;
    const attached = doc.uri.scheme === 'file' && this.client !== undefined;
    const sel = editor.selection;
    const t: Target = {
      uri: this.client ? this.client.code2ProtocolConverter.asUri(doc.uri) : doc.uri.toString(),
      attached,
    };
    if (!sel.isEmpty) {
      t.selection = {
        start: { line: sel.start.line, character: sel.start.character },
        end: { line: sel.end.line, character: sel.end.character },
      };
      t.selectedText = doc.getText(sel);
    }
    if (!attached) {
      t.text = doc.getText();
    }
    return t;
  }

  private async ask(arg: unknown): Promise<void> {
    const given = plainObject(arg);
    if (given && typeof given.prompt === 'string') {
      await this.started(await this.execute(COMMANDS.ask.server, given));
      return;
    }
    const target = this.target();
    const about = target?.selection
      ? 'about the selection'
      : target?.attached
        ? `about ${vscode.workspace.asRelativePath(vscode.window.activeTextEditor!.document.uri)}`
        : 'about the workspace';
    const prompt = await vscode.window.showInputBox({
      title: 'Ask the agent',
      prompt: `What should the agent do? (${about})`,
      placeHolder: 'e.g. rename Config to Settings',
      ignoreFocusOut: true,
    });
    const args = askArgs(prompt, target);
    if (args) {
      await this.started(await this.execute(COMMANDS.ask.server, args));
    }
  }

  /** started notes in the status bar that a turn began. */
  private async started(outcome: Outcome): Promise<void> {
    const turn = plainObject(outcome.result)?.turn;
    if (outcome.ok && typeof turn === 'number') {
      vscode.window.setStatusBarMessage(`agentls: agent turn ${turn} started`, 3000);
    }
  }

  private async applyReply(): Promise<void> {
    const target = this.target();
    if (!target) {
      void vscode.window.showErrorMessage('agentls: open the reply to apply (or select it) first.');
      return;
    }
    const args = applyArgs(target);
    if (!args) {
      void vscode.window.showErrorMessage('agentls: there is no reply here to apply.');
      return;
    }
    await this.execute(COMMANDS.applyReply.server, args);
  }

  private async openChat(arg: unknown): Promise<void> {
    const given = plainObject(arg);
    if (given) {
      await this.execute(COMMANDS.openChat.server, given);
      return;
    }
    const name = await vscode.window.showInputBox({
      title: 'Open a chat',
      prompt: 'The chat document .agentls/chat/NAME.md (created if need be)',
      value: 'chat',
      validateInput: validateChatName,
    });
    if (name === undefined) {
      return;
    }
    // The server creates the document and asks VS Code to show it.
    await this.execute(COMMANDS.openChat.server, chatOpenArgs(name));
  }

  /** sendChat sends the chat document in sight (the active one first). */
  private async sendChat(): Promise<void> {
    const editors = [vscode.window.activeTextEditor, ...vscode.window.visibleTextEditors];
    const chat = editors.find((e) => e && e.document.uri.scheme === 'file' && isChatPath(e.document.uri.fsPath));
    if (!chat || !this.client) {
      const choice = await vscode.window.showInformationMessage(
        'agentls: no chat document is open. Open one, write under its last heading, then send it.',
        'Open Chat…',
      );
      if (choice) {
        await this.openChat(undefined);
      }
      return;
    }
    await this.started(
      await this.execute(COMMANDS.sendChat.server, { uri: this.client.code2ProtocolConverter.asUri(chat.document.uri) }),
    );
  }

  /**
   * cancel cancels the work given, or the only work running, or the one
   * picked; with nothing known to run it asks the server to cancel all
   * (it says so when there is nothing). Work that is not a turn (applying
   * a reply, following a job) is named by its progress token.
   */
  private async cancel(arg: unknown): Promise<void> {
    const given = plainObject(arg);
    if (given) {
      await this.execute(COMMANDS.cancel.server, given);
      return;
    }
    const running = this.tracker.running();
    const argsOf = (w: Work) => (w.turn !== undefined ? turnArgs(w.turn) : { token: w.token });
    if (running.length <= 1) {
      await this.execute(COMMANDS.cancel.server, running.length === 1 ? argsOf(running[0]) : {});
      return;
    }
    type Item = vscode.QuickPickItem & { args: object };
    const items: Item[] = [
      { label: 'All agentls work', description: `${running.length} running`, args: {} },
      ...running.map((w) => ({
        label: w.title,
        description: w.message,
        args: argsOf(w),
      })),
    ];
    const pick = await vscode.window.showQuickPick(items, { title: 'Cancel agentls work' });
    if (pick) {
      await this.execute(COMMANDS.cancel.server, pick.args);
    }
  }

  /** review runs a review command on this file, all pending edits, or one hunk. */
  private async review(command: string, verb: string, arg: unknown): Promise<void> {
    const given = plainObject(arg);
    if (given) {
      await this.execute(command, given);
      return;
    }
    const target = this.target();
    type Item = vscode.QuickPickItem & { scope: ReviewScope | 'ask' };
    const items: Item[] = [];
    if (target?.attached) {
      const name = vscode.workspace.asRelativePath(vscode.window.activeTextEditor!.document.uri);
      items.push({ label: 'This file', description: name, scope: { kind: 'file' } });
    }
    items.push({ label: 'All pending edits', scope: { kind: 'all' } });
    items.push({ label: 'One hunk…', description: 'by its number', scope: 'ask' });
    const pick = await vscode.window.showQuickPick(items, { title: `${verb} pending agent edits` });
    if (!pick) {
      return;
    }
    let scope = pick.scope;
    if (scope === 'ask') {
      const input = await vscode.window.showInputBox({
        title: `${verb} one pending agent edit`,
        prompt: 'The hunk number (shown on the pending edit)',
        validateInput: (s) => (parseId(s) === undefined ? 'a positive number' : undefined),
      });
      const hunk = parseId(input);
      if (hunk === undefined) {
        return;
      }
      scope = { kind: 'hunk', hunk };
    }
    const args = reviewArgs(scope, target);
    if (args) {
      await this.execute(command, args);
    }
  }

  private async run(arg: unknown): Promise<void> {
    const given = plainObject(arg);
    let command = typeof given?.command === 'string' ? given.command : undefined;
    if (command === undefined) {
      command = await vscode.window.showInputBox({
        title: 'Run a command as an agent job',
        prompt: 'In the workspace\'s shell; its output becomes diagnostics where it names files',
        placeHolder: 'e.g. go test ./...',
        ignoreFocusOut: true,
      });
    }
    if (!command || command.trim() === '') {
      return;
    }
    const outcome = await this.execute(COMMANDS.run.server, { command });
    const job = plainObject(outcome.result)?.job;
    if (!outcome.ok || typeof job !== 'number') {
      return;
    }
    const choice = await vscode.window.showInformationMessage(`agentls: job ${job} started: ${command}`, 'Show Output', 'Kill');
    if (choice === 'Show Output') {
      await this.showJobOutput(job);
    } else if (choice === 'Kill') {
      await this.execute(COMMANDS.killJob.server, { job });
    }
  }

  private async listJobs(): Promise<Job[] | undefined> {
    const outcome = await this.execute(COMMANDS.jobs.server, {});
    return outcome.ok ? parseJobs(outcome.result) : undefined;
  }

  /** pickJob asks for a job, newest first; undefined when there is none or none was picked. */
  private async pickJob(title: string, runningOnly: boolean): Promise<Job | undefined> {
    const jobs = await this.listJobs();
    if (!jobs) {
      return undefined;
    }
    const items = jobItems(jobs, runningOnly);
    if (items.length === 0) {
      void vscode.window.showInformationMessage(runningOnly ? 'agentls: no job is running.' : 'agentls: no jobs yet.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(items, { title, matchOnDescription: true });
    return pick?.job;
  }

  /** jobs lists the jobs; a picked one can be shown, opened or killed. */
  private async jobs(): Promise<void> {
    const job = await this.pickJob('agentls jobs', false);
    if (!job) {
      return;
    }
    type Item = vscode.QuickPickItem & { action: 'output' | 'log' | 'kill' };
    const items: Item[] = [{ label: 'Show output', action: 'output' }];
    if (job.log) {
      items.push({ label: 'Open log file', description: job.log, action: 'log' });
    }
    if (job.running) {
      items.push({ label: 'Kill', action: 'kill' });
    }
    const pick = await vscode.window.showQuickPick(items, { title: `Job ${job.id}: ${job.command}` });
    switch (pick?.action) {
      case 'output':
        await this.showJobOutput(job.id);
        break;
      case 'log':
        // The server opens the log with window/showDocument.
        await this.execute(COMMANDS.jobOutput.server, { job: job.id, show: true });
        break;
      case 'kill':
        await this.execute(COMMANDS.killJob.server, { job: job.id });
        break;
    }
  }

  private async jobOutput(arg: unknown): Promise<void> {
    const given = plainObject(arg);
    const id = typeof given?.job === 'number' ? given.job : (await this.pickJob('Show the output of a job', false))?.id;
    if (id !== undefined) {
      await this.showJobOutput(id);
    }
  }

  /** showJobOutput shows a job's output as a read-only document, refreshed each time. */
  private async showJobOutput(job: number): Promise<void> {
    const outcome = await this.execute(COMMANDS.jobOutput.server, { job });
    if (!outcome.ok) {
      return;
    }
    const uri = vscode.Uri.from({ scheme: JOB_SCHEME, path: `/job-${job}.log` });
    this.jobText.set(uri.path, outputText(outcome.result));
    this.jobChanged.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  private async killJob(arg: unknown): Promise<void> {
    const given = plainObject(arg);
    const id = typeof given?.job === 'number' ? given.job : (await this.pickJob('Kill a job', true))?.id;
    if (id !== undefined) {
      await this.execute(COMMANDS.killJob.server, { job: id });
    }
  }

  /**
   * approval answers the command waiting for approval (the request also
   * came as a notification with buttons; this answers it from the
   * palette, e.g. after the notification was closed).
   */
  private async approval(approve: boolean, arg: unknown): Promise<void> {
    const command = approve ? COMMANDS.approve.server : COMMANDS.deny.server;
    const given = plainObject(arg);
    if (given) {
      await this.execute(command, given);
      return;
    }
    type Item = vscode.QuickPickItem & { choice: ApprovalChoice };
    const items: Item[] = approve
      ? [
          { label: 'Approve', description: 'run the command once', choice: 'once' },
          { label: 'Approve always', description: 'and allow such commands from now on', choice: 'always' },
        ]
      : [
          { label: 'Deny', description: 'skip the command; the agent goes on', choice: 'skip' },
          { label: 'Deny and stop', description: 'and end the agent turn', choice: 'stop' },
        ];
    const pick = await vscode.window.showQuickPick(items, {
      title: approve ? 'Approve the agent\'s command' : 'Deny the agent\'s command',
    });
    if (!pick) {
      return;
    }
    const request = await vscode.window.showInputBox({
      title: 'Which request?',
      prompt: 'The request number (in the approval message), or empty for the one waiting',
      validateInput: validateId,
    });
    if (request === undefined) {
      return;
    }
    await this.execute(command, approvalArgs(pick.choice, parseId(request)));
  }
}
