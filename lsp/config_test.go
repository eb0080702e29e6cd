package lsp

import (
	"strings"
	"testing"
)

func TestSettingsApply(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		check     func(settings) bool
		problems  []string
	}{
		{"valid", `{"model": "gpt-5", "toolFormat": "xml", "tools": ["save", "patch"], "maxSteps": 5}`,
			func(s settings) bool {
				return s.Model == "gpt-5" && s.ToolFormat == "xml" && len(s.Tools) == 2 && s.MaxSteps == 5
			}, nil},
		{"wrapped in a section", `{"agentls": {"model": "m2"}}`, func(s settings) bool { return s.Model == "m2" }, nil},
		{"review mode", `{"applyMode": "review"}`, func(s settings) bool { return s.ApplyMode == "review" }, nil},
		{"wrong type kept out", `{"maxSteps": "ten", "model": "m"}`, func(s settings) bool { return s.MaxSteps == 30 && s.Model == "m" }, []string{"agentls.maxSteps: \"ten\" is not a valid value"}},
		{"bad enum", `{"toolFormat": "yaml"}`, func(s settings) bool { return s.ToolFormat == "markdown" }, []string{"\"yaml\" is not one of markdown, xml, tool"}},
		{"unknown tool", `{"tools": ["shel"]}`, func(s settings) bool { return s.Tools == nil }, []string{"\"shel\" matches no tool"}},
		{"unknown key", `{"modle": "x"}`, func(s settings) bool { return true }, []string{"agentls.modle: unknown setting"}},
		{"a key instead of its variable's name", `{"apiKeyEnv": "sk-secret123"}`, func(s settings) bool { return s.APIKeyEnv == "OPENAI_API_KEY" }, []string{"not the key"}},
		{"non-positive timeout", `{"shellTimeout": 0}`, func(s settings) bool { return s.ShellTimeout == 1200 }, []string{"positive number of seconds"}},
		{"not an object", `[1]`, func(s settings) bool { return true }, []string{"not a JSON object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := defaultSettings().apply([]byte(tc.raw))
			if !tc.check(got) {
				t.Errorf("settings = %+v", got)
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems = %q, want %d", problems, len(tc.problems))
			}
			for i, p := range tc.problems {
				if !strings.Contains(problems[i], p) {
					t.Errorf("problem %q does not say %q", problems[i], p)
				}
				if strings.Contains(problems[i], "sk-secret") {
					t.Errorf("a problem repeats the key: %q", problems[i])
				}
			}
		})
	}
}
