package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SyntaxError is what Split returns for a script the shell parser rejects.
// Its text is the one gptme gives the model, so the model knows to rewrite
// the command rather than retry it.
type SyntaxError struct {
	Err error // the parser's error, with line:column
}

func (e *SyntaxError) Error() string {
	return "Shell syntax error: " + e.Err.Error() + "\nPlease fix the syntax or use a different approach."
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Split cuts a script into the commands that run one after another, the
// way gptme does: each top-level statement is one command, so statements
// on separate lines split while `a; b`, `a && b`, `a | b` and anything
// spanning lines (compound commands, line continuations) stay whole. A
// statement keeps its here-documents, bodies included, and statements on
// the same line as a here-document's operator stay with it. Comments
// between statements vanish; the text of each command is taken verbatim
// from the script, so quoting and continuations mean what they meant.
//
// Like gptme, the script is trimmed and one leading "$ " (a prompt the
// model copied) is removed; CRLF line ends (an editor on Windows) become
// LF, which is what bash needs, and NUL bytes, which bash cannot take,
// are dropped. An empty or comment-only script has no
// commands. A script the parser rejects returns a *SyntaxError.
func Split(script string) ([]string, error) {
	script = strings.ReplaceAll(script, "\r\n", "\n")
	script = strings.ReplaceAll(script, "\x00", "")
	script = strings.TrimSpace(script)
	script = strings.TrimPrefix(script, "$ ")
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	file, err := parser.Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, &SyntaxError{Err: err}
	}
	var commands []string
	for i := 0; i < len(file.Stmts); {
		start := int(file.Stmts[i].Pos().Offset())
		end := stmtEnd(script, file.Stmts[i])
		lineEnd := int(file.Stmts[i].End().Offset())
		i++
		// A statement that starts on the line where the previous one ended
		// (after `;` or `&`) belongs to the same command.
		for i < len(file.Stmts) {
			next := int(file.Stmts[i].Pos().Offset())
			if next < lineEnd || strings.Contains(script[lineEnd:next], "\n") {
				break
			}
			end = max(end, stmtEnd(script, file.Stmts[i]))
			lineEnd = int(file.Stmts[i].End().Offset())
			i++
		}
		commands = append(commands, script[start:end])
	}
	return commands, nil
}

// stmtEnd is the offset just past a statement including its
// here-documents, whose bodies follow the statement's line in the source.
func stmtEnd(script string, stmt *syntax.Stmt) int {
	end := int(stmt.End().Offset())
	syntax.Walk(stmt, func(node syntax.Node) bool {
		redirect, ok := node.(*syntax.Redirect)
		if !ok || (redirect.Op != syntax.Hdoc && redirect.Op != syntax.DashHdoc) {
			return true
		}
		delim := heredocDelimiter(redirect.Word)
		hdocEnd := -1
		if redirect.Hdoc != nil && redirect.Hdoc.End().IsValid() {
			// The parser's body ends with the closing delimiter line.
			hdocEnd = int(redirect.Hdoc.End().Offset())
		} else {
			// An empty body has no node: find the delimiter line
			// ourselves, on the first line after everything seen so far.
			from := max(end, int(redirect.OpPos.Offset()))
			if from > 0 && script[from-1] == '\n' {
				// An earlier here-document ended with its delimiter's
				// line: this one's body starts right here.
				hdocEnd = delimiterLineEnd(script, from, delim, redirect.Op == syntax.DashHdoc)
			} else if nl := strings.IndexByte(script[from:], '\n'); nl >= 0 {
				hdocEnd = delimiterLineEnd(script, from+nl+1, delim, redirect.Op == syntax.DashHdoc)
			}
		}
		switch {
		case hdocEnd < 0:
		case delim == "":
			// An empty delimiter is an empty line, which only exists
			// with its newline.
			if hdocEnd < len(script) && script[hdocEnd] == '\n' {
				hdocEnd++
			}
		default:
			// The delimiter is a whole line (the parser may end the body
			// inside one, as in "$00" for delimiter 0).
			if nl := strings.IndexByte(script[hdocEnd:], '\n'); nl >= 0 {
				hdocEnd += nl
			} else {
				hdocEnd = len(script)
			}
		}
		end = max(end, hdocEnd)
		return true
	})
	return min(end, len(script))
}

// delimiterLineEnd is the end of the first line at or after from that
// closes a here-document with delim, or -1 when there is none.
func delimiterLineEnd(script string, from int, delim string, stripTabs bool) int {
	for pos := from; pos <= len(script); {
		lineEnd := len(script)
		if nl := strings.IndexByte(script[pos:], '\n'); nl >= 0 {
			lineEnd = pos + nl
		}
		line := script[pos:lineEnd]
		if stripTabs {
			line = strings.TrimLeft(line, "\t")
		}
		if line == delim {
			return lineEnd
		}
		pos = lineEnd + 1
	}
	return -1
}

// heredocDelimiter is the delimiter word with its quoting removed, as the
// shell compares it.
func heredocDelimiter(word *syntax.Word) string {
	if word == nil {
		return ""
	}
	var b strings.Builder
	var add func(parts []syntax.WordPart)
	add = func(parts []syntax.WordPart) {
		for _, part := range parts {
			switch part := part.(type) {
			case *syntax.Lit:
				for i := 0; i < len(part.Value); i++ {
					if part.Value[i] == '\\' { // \x quotes x
						i++
					}
					if i < len(part.Value) {
						b.WriteByte(part.Value[i])
					}
				}
			case *syntax.SglQuoted:
				b.WriteString(part.Value)
			case *syntax.DblQuoted:
				add(part.Parts)
			}
		}
	}
	add(word.Parts)
	return b.String()
}
