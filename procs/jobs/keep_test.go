package jobs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestFinishedJobsAreBounded is the soak test's finding as an attack: a
// session that runs many jobs printing a lot (a test suite run again and
// again) held every finished job's output, 1 MiB of stdout each here.
// With the default bounds the heap holds the newest jobs' output up to
// 32 MiB, whatever the number of jobs; the newest job stays readable and
// the oldest says where its log is.
func TestFinishedJobsAreBounded(t *testing.T) {
	const (
		jobs     = 64
		perJob   = 1_500_000 // more than the ring keeps: 1 MiB stays
		generous = defaultKeepFinishedBytes + 16<<20
	)
	logDir := t.TempDir()
	m := newTestManager(t, Options{LogDir: logDir})
	before := heapInUse()
	var last Info
	for range jobs {
		last = waitEnded(t, m, start(t, m, fmt.Sprintf("head -c %d /dev/zero", perJob)).ID)
	}
	grown := int64(heapInUse()) - int64(before)
	t.Logf("%d finished jobs of %d bytes of output each: the heap grew %.1f MiB; %d jobs kept", jobs, perJob, float64(grown)/(1<<20), len(m.List()))
	if grown > generous {
		t.Errorf("after %d finished jobs the heap grew %.1f MiB, more than %d MiB: finished jobs are not bounded", jobs, float64(grown)/(1<<20), generous>>20)
	}
	if kept := len(m.List()); kept >= jobs || kept > defaultKeepFinished {
		t.Errorf("%d of %d finished jobs kept, want at most %d", kept, jobs, defaultKeepFinished)
	}
	if out, err := m.Output(last.ID, 0, 0); err != nil || len(out.Stdout) != defaultKeepBytes {
		t.Errorf("the newest job's output: %d bytes, %v; want the last %d", len(out.Stdout), err, defaultKeepBytes)
	}
	_, err := m.Output(1, 0, 0)
	if !errors.Is(err, ErrForgotten) || !strings.Contains(err.Error(), filepath.Join(logDir, "job-1.log")) {
		t.Errorf("Output of the first job: %v, want ErrForgotten naming its log", err)
	}
}

// TestForgottenJobs: past KeepFinished the oldest finished job is
// forgotten, never a running one nor the one that ended last; what is
// left of it says how it ended and where its log is, for each way the
// model or the editor asks about it.
func TestForgottenJobs(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	withLog := newTestManager(t, Options{LogDir: logDir, KeepFinished: 2})
	noLog := newTestManager(t, Options{KeepFinished: 2})
	for _, m := range []*Manager{withLog, noLog} {
		running := start(t, m, "sleep 300").ID
		for k := 1; k <= 4; k++ {
			waitEnded(t, m, start(t, m, fmt.Sprintf("echo job %d; exit %d\necho more", k, k)).ID)
		}
		var listed []string
		for _, i := range m.List() {
			listed = append(listed, fmt.Sprintf("#%d running=%v", i.ID, i.Running))
		}
		if got, want := strings.Join(listed, ", "), fmt.Sprintf("#%d running=true, #4 running=false, #5 running=false", running); got != want {
			t.Errorf("List: %s, want %s (the running job and the 2 newest finished)", got, want)
		}
	}

	tests := []struct {
		name string
		m    *Manager
		id   int
		// inMessage are parts of Output's error.
		inMessage []string
		exitCode  int
	}{
		{"with a log", withLog, 2, []string{"job #2 (`echo job 1; exit 1 ...`) ended (exit code 1) and was forgotten", "newest 2 finished jobs", "its full output is in " + filepath.Join(logDir, "job-2.log")}, 1},
		{"without a log", noLog, 3, []string{"job #3", "exit code 2", "no log file was kept", "run the command again"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.m.Output(tt.id, 0, 0)
			if !errors.Is(err, ErrForgotten) || !errors.Is(err, ErrNoJob) {
				t.Fatalf("Output of a forgotten job: %v, want ErrForgotten (and ErrNoJob)", err)
			}
			for _, part := range tt.inMessage {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("Output's error %q lacks %q", err, part)
				}
			}
			info, ok := tt.m.Info(tt.id)
			if !ok || !info.Forgotten || info.Running || info.ExitCode != tt.exitCode {
				t.Errorf("Info = %+v, %v; want it forgotten, exit code %d", info, ok, tt.exitCode)
			}
			if waited, err := tt.m.Wait(context.Background(), tt.id, 0); err != nil || !waited.Forgotten {
				t.Errorf("Wait = %+v, %v; want the forgotten job at once", waited, err)
			}
			if killed, err := tt.m.Kill(context.Background(), tt.id); err != nil || !killed.Forgotten || killed.Killed {
				t.Errorf("Kill = %+v, %v; want nothing done", killed, err)
			}
			if err := tt.m.Forget(tt.id); err != nil {
				t.Errorf("Forget of a forgotten job: %v", err)
			}
		})
	}

	// A record dropped (past maxForgottenRecords) still tells a forgotten
	// job from one that never was.
	withLog.mu.Lock()
	delete(withLog.forgotten, 2)
	withLog.mu.Unlock()
	if info, ok := withLog.Info(2); !ok || !info.Forgotten || info.LogPath != filepath.Join(logDir, "job-2.log") {
		t.Errorf("Info of a job forgotten long ago = %+v, %v; want it forgotten, with its log", info, ok)
	}
	if _, err := withLog.Output(2, 0, 0); !errors.Is(err, ErrForgotten) || !strings.Contains(err.Error(), "job-2.log") {
		t.Errorf("Output of a job forgotten long ago: %v", err)
	}
	for _, id := range []int{0, 6, 100} {
		if _, ok := withLog.Info(id); ok {
			t.Errorf("Info(%d) found a job that never was", id)
		}
		if _, err := withLog.Output(id, 0, 0); !errors.Is(err, ErrNoJob) || errors.Is(err, ErrForgotten) {
			t.Errorf("Output(%d): %v, want ErrNoJob only", id, err)
		}
	}
}

// TestKeepFinishedBytes: the byte budget forgets jobs before the count
// does, but never the job that ended last, even one larger than the
// whole budget.
func TestKeepFinishedBytes(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{KeepBytes: 64 << 10, KeepFinishedBytes: 100 << 10})
	for range 3 {
		waitEnded(t, m, start(t, m, "head -c 60000 /dev/zero").ID)
	}
	if got := len(m.List()); got != 1 {
		t.Errorf("%d jobs of 60 KB kept under a 100 KB budget, want 1", got)
	}
	big := newTestManager(t, Options{KeepBytes: 64 << 10, KeepFinishedBytes: 10 << 10})
	id := waitEnded(t, big, start(t, big, "head -c 60000 /dev/zero").ID).ID
	if out, err := big.Output(id, 0, 0); err != nil || len(out.Stdout) != 60000 {
		t.Errorf("the only job, larger than the budget: %d bytes, %v", len(out.Stdout), err)
	}
}

// TestFinishedJobLetsGo: once a job has ended, what only a running job
// needs is let go at once (the exec.Cmd with its environment, the
// process, the pipes, the forwarder), and its rings hold no spare room.
func TestFinishedJobLetsGo(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{Output: func(int, string, []byte) {}})
	id := waitEnded(t, m, start(t, m, "head -c 5000 /dev/zero; echo err >&2").ID).ID
	j, err := m.job(id)
	if err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cmd != nil || j.proc != nil || j.pipes != nil || j.fwd != nil {
		t.Errorf("a finished job still holds cmd %v, proc %v, pipes %v, forwarder %v", j.cmd != nil, j.proc != nil, j.pipes != nil, j.fwd != nil)
	}
	for _, r := range []*Ring{j.stdout, j.stderr} {
		if cap(r.buf) != r.Len() {
			t.Errorf("a finished job's ring holds %d bytes in %d", r.Len(), cap(r.buf))
		}
	}
	if j.keptSize < 5000 {
		t.Errorf("keptSize %d, less than the output kept", j.keptSize)
	}
}
