package agentls_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestArchitectureNamesExist: every Go name docs/ARCHITECTURE.md quotes
// (`Batch.ConfirmProtected`, `frameStream`, `settings.PrivateDirs`) is in
// the code, so the page cannot go on describing what was renamed or
// removed. A `pkg.Name` must be in that package; a lone name anywhere.
func TestArchitectureNamesExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder              // the module's Go files, for command names
	all := map[string]bool{}              // every identifier in them
	byPkg := map[string]map[string]bool{} // and by package name
	pkgClause := regexp.MustCompile(`(?m)^package ([a-z0-9_]+)`)
	ident := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pkg := ""
		if m := pkgClause.FindSubmatch(src); m != nil {
			pkg = strings.TrimSuffix(string(m[1]), "_test")
		}
		if byPkg[pkg] == nil {
			byPkg[pkg] = map[string]bool{}
		}
		text.Write(src)
		// Identifiers of the code only: a name that survives in a
		// comment (a doc comment describing the old shape) does not
		// count as existing.
		fset := token.NewFileSet()
		var sc scanner.Scanner
		sc.Init(fset.AddFile(p, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := sc.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.STRING {
				// A setting's key is a string ("approvalPolicy").
				if v, err := strconv.Unquote(lit); err == nil && ident.MatchString(v) {
					tok, lit = token.IDENT, v
				}
			}
			if tok == token.IDENT {
				all[lit] = true
				byPkg[pkg][lit] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	quoted := regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\\(\\))?`")
	camel := regexp.MustCompile(`[a-z][A-Z]|^[A-Z][a-z]`)
	checked := 0
	for _, m := range quoted.FindAllStringSubmatch(string(doc), -1) {
		parts := strings.Split(m[1], ".")
		last := parts[len(parts)-1]
		if !camel.MatchString(last) {
			continue // a word, a setting's value, a marker: not a Go name
		}
		checked++
		if parts[0] == "agentls" {
			// A command (agentls.applyReply): its name is a string.
			if !strings.Contains(text.String(), `"`+m[1]+`"`) {
				t.Errorf("ARCHITECTURE.md quotes the command %s, which the code does not have", m[0])
			}
			continue
		}
		if len(parts) > 1 {
			if names, isPkg := byPkg[parts[len(parts)-2]]; isPkg {
				if !names[last] {
					t.Errorf("ARCHITECTURE.md quotes %s, but package %s has no %s", m[0], parts[len(parts)-2], last)
				}
				continue
			}
		}
		if !all[last] {
			t.Errorf("ARCHITECTURE.md quotes %s, which is nowhere in the code", m[0])
		}
	}
	if checked < 50 {
		t.Errorf("only %d names checked: is the pattern still right?", checked)
	}
}

// TestArchitectureIsShort: docs/ARCHITECTURE.md is a map a newcomer reads
// in twenty minutes (issue 26). Detail goes into the package doc comments,
// where it sits beside the code it describes, not here.
func TestArchitectureIsShort(t *testing.T) {
	const maxLines, maxWords = 300, 30
	doc, err := os.ReadFile(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(doc), "\n"); n > maxLines {
		t.Errorf("ARCHITECTURE.md has %d lines, more than %d: move the detail into the package doc comments", n, maxLines)
	}
	// Short sentences: the old page had one of 618 words. Only prose
	// counts: tables, lists of parts and code blocks are not sentences.
	end := regexp.MustCompile(`[.!?;:](\s|$)`) // where a sentence ends
	item := regexp.MustCompile(`^(- |\d+\. )`) // where a list item starts
	inCode := false
	var para strings.Builder
	check := func() {
		for _, s := range end.Split(para.String(), -1) {
			if n := len(strings.Fields(s)); n > maxWords {
				t.Errorf("ARCHITECTURE.md has a sentence of %d words (at most %d): %.80q…", n, maxWords, strings.TrimSpace(s))
			}
		}
		para.Reset()
	}
	for line := range strings.Lines(string(doc)) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inCode = !inCode
			check()
			continue
		}
		if inCode || strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "#") {
			check()
			continue
		}
		if trimmed == "" || item.MatchString(trimmed) {
			check() // a new paragraph or list item starts a new sentence
		}
		para.WriteString(" " + trimmed)
	}
	check()
}
