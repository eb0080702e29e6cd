package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadReports merges reports and results.jsonl files: a later file's
// run of a tool on a task replaces an earlier one's, tools and tasks are
// the union, the totals are counted again, and files that cannot be
// merged are refused with what is wrong.
func TestLoadReports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	report := func(model string, tasks []string, rs ...Result) string {
		var b bytes.Buffer
		if err := writeJSON(&b, Report{Model: model, Tools: []string{"agentls"}, Tasks: tasks, Results: rs}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	jsonl := func(rs ...Result) string {
		var b strings.Builder
		for _, r := range rs {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		return b.String()
	}
	full := write("full.json", report("m", []string{"a", "b", "c"},
		Result{Tool: "agentls", Task: "a", Run: 1, Solved: true},
		Result{Tool: "agentls", Task: "b", Run: 1},
		Result{Tool: "gptme", Task: "a", Run: 1}))
	rest := write("rest.jsonl", jsonl(
		Result{Tool: "gptme", Task: "b", Run: 1, Solved: true},
		Result{Tool: "gptme", Task: "a", Run: 1, Solved: true})) // made again
	other := write("other.json", report("other-model", []string{"a"}, Result{Tool: "agentls", Task: "a", Run: 1}))
	bad := write("bad.jsonl", "{\"tool\":\"gptme\",\"task\":\"a\",\"run\":1}\nnot json\n")

	t.Run("a later run replaces an earlier one", func(t *testing.T) {
		rep, err := loadReports([]string{full, rest})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rep.Results {
			got = append(got, r.Tool+"/"+r.Task+"/"+map[bool]string{true: "solved", false: "failed"}[r.Solved])
		}
		want := "agentls/a/solved agentls/b/failed gptme/a/solved gptme/b/solved"
		if strings.Join(got, " ") != want {
			t.Errorf("results %q, want %q", strings.Join(got, " "), want)
		}
		if rep.Model != "m" || strings.Join(rep.Tools, ",") != "agentls,gptme" || strings.Join(rep.Tasks, ",") != "a,b,c" {
			t.Errorf("model %q tools %q tasks %q", rep.Model, rep.Tools, rep.Tasks)
		}
		if rep.Total.Solved != 3 || rep.Total.Runs != 4 {
			t.Errorf("total %+v, want 3 solved of 4 runs", rep.Total)
		}
	})
	t.Run("results.jsonl alone leaves the tasks to the suite", func(t *testing.T) {
		rep, err := loadReports([]string{rest})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Results) != 2 || rep.Tasks != nil || rep.Model != "" {
			t.Errorf("results %d, tasks %q, model %q", len(rep.Results), rep.Tasks, rep.Model)
		}
	})
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"different models", []string{full, other}, `model "other-model", but`},
		{"a line that is not a result", []string{bad}, "line 2 is neither a report"},
		{"a missing file", []string{filepath.Join(dir, "none.json")}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadReports(tc.files)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestFormatsAreRows: agentls's runs in the xml and tool formats are rows
// of their own, beside the markdown one, when reports are merged; the
// command the section names lists the tools once.
func TestFormatsAreRows(t *testing.T) {
	for format, want := range map[string]string{"": "agentls", "markdown": "agentls", "xml": "agentls-xml", "tool": "agentls-tool"} {
		if got := (agentlsDriver{format: format}).Name(); got != want {
			t.Errorf("format %q: Name() = %q, want %q", format, got, want)
		}
	}
	rep := Report{Model: "m", Tasks: []string{"a"}, Tools: []string{"agentls", "agentls-xml"}, Results: []Result{
		{Tool: "agentls", Task: "a", Format: "markdown", Run: 1, Solved: true},
		{Tool: "agentls-xml", Task: "a", Format: "xml", Run: 1},
	}}
	md := benchMarkdown(rep)
	if !strings.Contains(md, "| agentls | 1 | **1** |") || !strings.Contains(md, "| agentls-xml | 1 | **0** |") || !strings.Contains(md, "--tools agentls --bench-md") {
		t.Errorf("section:\n%s", md)
	}
}
