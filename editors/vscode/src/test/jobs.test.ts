import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { formatSeconds, jobItems, jobStatus, outputText, parseJobs } from '../jobs';

// What agentls.jobs.list answers (lsp/run.go jobInfo).
const listed = [
  { id: 1, command: 'go build ./...', running: false, exitCode: 0, seconds: 2.345, log: '/s/jobs/1.log' },
  { id: 2, command: 'go test ./...', running: true, exitCode: 0, seconds: 75 },
  { id: 3, command: 'make lint', running: false, exitCode: 2, seconds: 0.04 },
];

describe('parseJobs', () => {
  it('reads the server answer', () => {
    const jobs = parseJobs(listed);
    assert.equal(jobs.length, 3);
    assert.deepEqual(jobs[0], listed[0]);
    assert.equal(jobs[1].log, undefined);
  });
  it('takes a {jobs} wrapper', () => {
    assert.equal(parseJobs({ jobs: listed }).length, 3);
  });
  it('drops what is not a job', () => {
    assert.deepEqual(parseJobs(null), []);
    assert.deepEqual(parseJobs({}), []);
    assert.deepEqual(parseJobs('x'), []);
    assert.deepEqual(parseJobs([null, 1, { command: 'no id' }, { id: '4' }]), []);
  });
  it('fills missing fields', () => {
    assert.deepEqual(parseJobs([{ id: 9 }]), [{ id: 9, command: '', running: false, exitCode: 0, seconds: 0, log: undefined }]);
  });
});

describe('formatSeconds', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [0.04, '0s'],
    [2.345, '2.3s'],
    [9.96, '10s'],
    [12.4, '12s'],
    [75, '1m15s'],
    [3599, '59m59s'],
    [7260, '2h01m'],
    [-1, ''],
    [NaN, ''],
  ];
  for (const [s, want] of cases) {
    it(`${s}`, () => assert.equal(formatSeconds(s), want));
  }
});

describe('jobItems', () => {
  it('lists newest first with status', () => {
    const items = jobItems(parseJobs(listed));
    assert.deepEqual(
      items.map((i) => [i.label, i.description, i.detail]),
      [
        ['$(error) 3: make lint', 'exit 2, 0s', undefined],
        ['$(sync~spin) 2: go test ./...', 'running, 1m15s', undefined],
        ['$(check) 1: go build ./...', 'exit 0, 2.3s', '/s/jobs/1.log'],
      ],
    );
    assert.equal(items[1].job.id, 2);
  });
  it('running only, for Kill Job', () => {
    assert.deepEqual(
      jobItems(parseJobs(listed), true).map((i) => i.job.id),
      [2],
    );
  });
  it('jobStatus', () => {
    assert.equal(jobStatus(parseJobs(listed)[1]), 'running');
    assert.equal(jobStatus(parseJobs(listed)[2]), 'exit 2');
  });
});

describe('outputText', () => {
  it('prefers the server text', () => {
    assert.equal(outputText({ job: { id: 1 }, stdout: 'o', stderr: 'e', text: 'job 1 …\no\ne' }), 'job 1 …\no\ne');
  });
  it('falls back to stdout and stderr', () => {
    assert.equal(outputText({ stdout: 'o', stderr: 'e' }), 'o\ne');
    assert.equal(outputText({ stdout: '', stderr: 'e' }), 'e');
  });
  it('shows anything else as JSON', () => {
    assert.equal(outputText('plain'), 'plain');
    assert.equal(outputText({ x: 1 }), '{\n  "x": 1\n}');
    assert.equal(outputText(undefined), '');
  });
});
