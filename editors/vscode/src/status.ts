// The work in progress, for the status-bar item. The server reports each
// agent turn, reply application and job as work-done progress (begin,
// report, end) under a token of its own; VS Code shows each as a
// notification, and the status bar keeps the newest one in sight.

/** One piece of work in progress. */
export interface Work {
  token: string;
  /** The server's title without its "agentls: " prefix: "agent turn 3". */
  title: string;
  message?: string;
  percentage?: number;
  /** The agent turn, when the work is one (its title says so). */
  turn?: number;
  seq: number;
}

/** A $/progress value (WorkDoneProgressBegin, Report or End). */
export interface ProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

/** turnOf reads the turn from a title such as "agentls: agent turn 3". */
export function turnOf(title: string): number | undefined {
  const m = /\bagent turn (\d+)\b/.exec(title);
  return m ? Number(m[1]) : undefined;
}

/**
 * escapeIcons keeps "$(name)" in the server's text from being drawn as an
 * icon in the status bar (a shell step may well say "$(date)").
 */
export function escapeIcons(s: string): string {
  return s.replace(/(\\)?\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)/gi, (match: string, escaped?: string) =>
    escaped ? match : `\\${match}`,
  );
}

function clip(s: string, max: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : line.slice(0, max - 1) + '…';
}

/** ProgressTracker keeps the work in progress from $/progress. */
export class ProgressTracker {
  private readonly work = new Map<string, Work>();
  private seq = 0;

  /** update takes one $/progress notification; it says whether anything changed. */
  update(token: string | number, value: ProgressValue | undefined): boolean {
    if (!value || typeof value !== 'object') {
      return false;
    }
    const key = String(token);
    switch (value.kind) {
      case 'begin': {
        const title = (value.title ?? 'agentls').replace(/^agentls:\s*/, '') || 'agentls';
        this.work.set(key, {
          token: key,
          title,
          message: value.message,
          percentage: value.percentage,
          turn: turnOf(title),
          seq: ++this.seq,
        });
        return true;
      }
      case 'report': {
        const w = this.work.get(key);
        if (!w) {
          return false;
        }
        if (value.message !== undefined) {
          w.message = value.message;
        }
        if (value.percentage !== undefined) {
          w.percentage = value.percentage;
        }
        return true;
      }
      case 'end':
        return this.work.delete(key);
    }
    return false;
  }

  /** clear forgets everything (the server stopped). */
  clear(): void {
    this.work.clear();
  }

  /** running lists the work in progress, newest first. */
  running(): Work[] {
    return [...this.work.values()].sort((a, b) => b.seq - a.seq);
  }

  /** newest is the work begun last, if any. */
  newest(): Work | undefined {
    return this.running()[0];
  }
}

/** What the status-bar item shows; undefined hides it. */
export interface StatusView {
  text: string;
  tooltip: string;
  /** The turn a click cancels, if the newest work is a turn. */
  turn?: number;
}

/**
 * statusView renders the work in progress: the newest piece and its last
 * step ("$(sync~spin) agent turn 3: step 2: read a.go"), with a count of
 * the others; the tooltip lists them all.
 */
export function statusView(running: readonly Work[], maxLength = 60): StatusView | undefined {
  const w = running[0];
  if (!w) {
    return undefined;
  }
  let text = w.title;
  if (w.message) {
    text += ': ' + w.message;
  }
  text = clip(text, maxLength);
  if (running.length > 1) {
    text += ` (+${running.length - 1})`;
  }
  const lines = running.map((r) => {
    const pct = r.percentage !== undefined ? ` ${Math.round(r.percentage)}%` : '';
    return `${r.title}${pct}${r.message ? ': ' + clip(r.message, 200) : ''}`;
  });
  const click = w.turn !== undefined ? `Click to cancel agent turn ${w.turn}.` : 'Click to show the agentls output.';
  return {
    text: `$(sync~spin) ${escapeIcons(text)}`,
    tooltip: `agentls\n${lines.join('\n')}\n\n${click}`,
    turn: w.turn,
  };
}

/** The part of agentls.status's result the idle status item shows. */
export interface SessionStatus {
  turns?: number;
  tokens?: { prompt?: number; completion?: number; estimated?: boolean };
  cost?: number | null;
  summary?: string;
}

/** thousands writes n with commas: 12345 → "12,345". */
export function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * idleView renders the session's totals from agentls.status when no work
 * runs: "$(hubot) agentls: ~12,345 tokens, $0.0300" (hidden before the
 * first turn); the tooltip is the server's whole status line.
 */
export function idleView(s: SessionStatus | undefined): StatusView | undefined {
  if (!s || !s.turns) {
    return undefined;
  }
  const approx = s.tokens?.estimated ? '~' : '';
  let text = `agentls: ${approx}${thousands((s.tokens?.prompt ?? 0) + (s.tokens?.completion ?? 0))} tokens`;
  if (typeof s.cost === 'number') {
    text += `, ${approx}$${s.cost.toFixed(4)}`;
  }
  return { text: `$(hubot) ${text}`, tooltip: `${s.summary ?? 'agentls'}\n\nClick for the status.` };
}
