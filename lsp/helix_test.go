package lsp_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helixDefaultServers are the language-servers lists of Helix 25.07's own
// languages.toml (tags 25.07 and 25.07.1 have the same file), for the
// languages editors/helix/languages.toml configures. A list there REPLACES
// Helix's, so a server dropped from it is a server the user loses: each
// must be exactly this default with "agentls" appended. A language added
// to the file needs its default here, read from that languages.toml.
var helixDefaultServers = map[string][]string{
	"markdown":   {"marksman", "markdown-oxide"},
	"go":         {"gopls", "golangci-lint-lsp"},
	"python":     {"ty", "ruff", "jedi", "pylsp"},
	"rust":       {"rust-analyzer"},
	"typescript": {"typescript-language-server"},
	"tsx":        {"typescript-language-server"},
	"javascript": {"typescript-language-server"},
	"jsx":        {"typescript-language-server"},
	"lua":        {"lua-language-server"},
	"c":          {"clangd"},
	"cpp":        {"clangd"},
	"java":       {"jdtls"},
	"ruby":       {"ruby-lsp", "solargraph"},
	"bash":       {"bash-language-server"},
	"toml":       {"taplo", "tombi"},
	"yaml":       {"yaml-language-server", "ansible-language-server"},
	"json":       {"vscode-json-language-server"},
}

// helixLanguages reads the [[language]] tables of a languages.toml as
// written in this repository (one `name = "…"` and one
// `language-servers = ["…", …]` line each): name → servers, in order.
func helixLanguages(t *testing.T, toml string) map[string][]string {
	t.Helper()
	langs := map[string][]string{}
	// Only a line that is the header opens a table: the comments show one too.
	sections := regexp.MustCompile(`(?m)^\[\[language\]\][ \t]*$`).Split(toml, -1)
	for _, section := range sections[1:] {
		section, _, _ = strings.Cut(section, "\n[") // up to the next table
		var name string
		var servers []string
		for line := range strings.Lines(section) {
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			value, _, _ = strings.Cut(value, "#") // no '#' inside these values
			value = strings.TrimSpace(value)
			switch strings.TrimSpace(key) {
			case "name":
				if err := json.Unmarshal([]byte(value), &name); err != nil {
					t.Fatalf("[[language]] name %s: %v", value, err)
				}
			case "language-servers":
				// A TOML array of basic strings is a JSON array.
				if err := json.Unmarshal([]byte(value), &servers); err != nil {
					t.Fatalf("language-servers %s: %v (write the list on one line, with double quotes)", value, err)
				}
			}
		}
		if name == "" || servers == nil {
			t.Fatalf("a [[language]] table without name or language-servers:\n%s", section)
		}
		if _, dup := langs[name]; dup {
			t.Fatalf("language %q is configured twice", name)
		}
		langs[name] = servers
	}
	return langs
}

// checkHelixServers fails for each language whose servers are not Helix
// 25.07's default followed by "agentls".
func checkHelixServers(t *testing.T, where string, langs map[string][]string) {
	t.Helper()
	if len(langs) == 0 {
		t.Fatalf("%s configures no language", where)
	}
	for name, servers := range langs {
		def, ok := helixDefaultServers[name]
		if !ok {
			t.Errorf("%s: language %q has no Helix 25.07 default in helixDefaultServers: add it from Helix 25.07's languages.toml", where, name)
			continue
		}
		if want := append(slices.Clone(def), "agentls"); !slices.Equal(servers, want) {
			t.Errorf("%s: %s has language-servers %q, want Helix 25.07's default plus agentls: %q", where, name, servers, want)
		}
	}
}

// TestHelixConfiguration checks editors/helix/languages.toml and the
// README's Helix block: every language's servers are exactly Helix
// 25.07's default list with agentls appended (a dropped default server
// fails), and the Helix version they need is stated once, the same in
// both places and in config.toml.
func TestHelixConfiguration(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../editors/helix/languages.toml")
	if err != nil {
		t.Fatal(err)
	}
	languages := string(data)
	langs := helixLanguages(t, languages)
	checkHelixServers(t, "editors/helix/languages.toml", langs)
	for _, name := range []string{"markdown", "go", "python", "toml", "yaml"} {
		if _, ok := langs[name]; !ok {
			t.Errorf("editors/helix/languages.toml does not configure %s", name)
		}
	}

	blocks := readmeBlocks(t, "**Helix**", "**Emacs**", "toml")
	if len(blocks) == 0 {
		t.Fatal("no toml block in the README's Helix section")
	}
	checkHelixServers(t, "the README's Helix block", helixLanguages(t, blocks[0]))

	// One version claim: what languages.toml says it needs is what the
	// README and config.toml say.
	needs := regexp.MustCompile(`Needs Helix (\d+\.\d+) or newer`).FindAllStringSubmatch(languages, -1)
	if len(needs) != 1 {
		t.Fatalf("languages.toml states the Helix it needs %d times, want once (\"Needs Helix X or newer\")", len(needs))
	}
	version := needs[0][1]
	if other := regexp.MustCompile(`Helix (\d+\.\d+) or newer`).FindAllStringSubmatch(languages, -1); len(other) != 1 {
		t.Errorf("languages.toml names %d minimum versions: %q", len(other), other)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "**Helix** ("+version+" or newer") {
		t.Errorf("the README's Helix section does not say %q, as languages.toml does", "**Helix** ("+version+" or newer")
	}
	config, err := os.ReadFile("../editors/helix/config.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(config), "Helix "+version+" and newer") {
		t.Errorf("config.toml does not say the bindings work in Helix %s and newer", version)
	}
}
