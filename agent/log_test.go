package agent

import (
	"path/filepath"
	"testing"
	"time"
)

// TestLogsOfTheSameSecond: two turns numbered alike and started in the
// same second (two `agentls ask` runs) each get a log of their own; the
// second does not append to the first's.
func TestLogsOfTheSameSecond(t *testing.T) {
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var names []string
	for i := range 3 {
		f, err := OpenLog(getenv, "/home/me/project", 1, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("run " + string(rune('a'+i)) + "\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		names = append(names, filepath.Base(f.Name()))
	}
	want := []string{"20261202T010000Z-turn1.jsonl", "20261202T010000Z-turn1-2.jsonl", "20261202T010000Z-turn1-3.jsonl"}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("log %d named %s, want %s", i+1, names[i], want[i])
		}
	}
	sub, err := OpenSubagentLog(getenv, "/home/me/project", 1, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	sub.Close()
	again, err := OpenSubagentLog(getenv, "/home/me/project", 1, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	subs, _ := filepath.Glob(filepath.Join(state, "agentls", "turns", "*", "20261202T010000Z-turn1-subagent1*.jsonl"))
	if len(subs) != 2 {
		t.Errorf("subagent logs %q, want 2 of their own", subs)
	}
}
