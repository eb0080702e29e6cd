// The agent's jobs as the server lists them (agentls.jobs.list) and their
// output (agentls.jobs.output), turned into quick-pick items and text.

/** A job as agentls.jobs.list returns it. */
export interface Job {
  id: number;
  command: string;
  running: boolean;
  exitCode: number;
  seconds: number;
  log?: string;
}

/**
 * parseJobs reads agentls.jobs.list's answer (an array of jobs; a
 * {jobs: [...]} wrapper is taken too). Entries without a numeric id are
 * dropped rather than shown wrong.
 */
export function parseJobs(result: unknown): Job[] {
  let list: unknown = result;
  if (list && typeof list === 'object' && !Array.isArray(list) && Array.isArray((list as { jobs?: unknown }).jobs)) {
    list = (list as { jobs: unknown[] }).jobs;
  }
  if (!Array.isArray(list)) {
    return [];
  }
  const jobs: Job[] = [];
  for (const j of list) {
    if (!j || typeof j !== 'object') {
      continue;
    }
    const o = j as Record<string, unknown>;
    if (typeof o.id !== 'number') {
      continue;
    }
    jobs.push({
      id: o.id,
      command: typeof o.command === 'string' ? o.command : '',
      running: o.running === true,
      exitCode: typeof o.exitCode === 'number' ? o.exitCode : 0,
      seconds: typeof o.seconds === 'number' ? o.seconds : 0,
      log: typeof o.log === 'string' && o.log !== '' ? o.log : undefined,
    });
  }
  return jobs;
}

/** formatSeconds says how long a job ran: "0.4s", "12s", "3m05s", "2h01m". */
export function formatSeconds(seconds: number): string {
  if (!(seconds >= 0)) {
    return '';
  }
  if (seconds < 10) {
    return `${Math.round(seconds * 10) / 10}s`;
  }
  const s = Math.round(seconds);
  if (s < 60) {
    return `${s}s`;
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) {
    return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  }
  return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
}

/** jobStatus is "running" or how the job ended. */
export function jobStatus(job: Job): string {
  return job.running ? 'running' : `exit ${job.exitCode}`;
}

/** A quick-pick item for a job (vscode.QuickPickItem's shape). */
export interface JobItem {
  label: string;
  description: string;
  detail?: string;
  job: Job;
}

/**
 * jobItems are the quick-pick items of jobs, newest first; only the
 * running ones when runningOnly (for "Kill Job").
 */
export function jobItems(jobs: Job[], runningOnly = false): JobItem[] {
  return jobs
    .filter((j) => !runningOnly || j.running)
    .sort((a, b) => b.id - a.id)
    .map((j) => ({
      label: `${j.running ? '$(sync~spin)' : j.exitCode === 0 ? '$(check)' : '$(error)'} ${j.id}: ${j.command}`,
      description: `${jobStatus(j)}, ${formatSeconds(j.seconds)}`,
      detail: j.log,
      job: j,
    }));
}

/**
 * outputText finds the text in agentls.jobs.output's answer ({job,
 * stdout, stderr, text}); other shapes are shown as JSON rather than lost.
 */
export function outputText(result: unknown): string {
  if (typeof result === 'string') {
    return result;
  }
  if (result && typeof result === 'object') {
    const o = result as Record<string, unknown>;
    if (typeof o.text === 'string') {
      return o.text;
    }
    if (typeof o.stdout === 'string' || typeof o.stderr === 'string') {
      return [o.stdout, o.stderr].filter((s) => typeof s === 'string' && s !== '').join('\n');
    }
  }
  return JSON.stringify(result, null, 2) ?? '';
}
