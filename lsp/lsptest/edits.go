package lsptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

type applyResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
	FailedChange  *int   `json:"failedChange,omitempty"`
}

// applyWorkspaceEdit applies an edit all or nothing, as editors that
// honour versions do: every versioned document must be at its version.
// Open buffers are edited (and the server told with didChange); files not
// open are edited on disk. What happened is recorded for expectations
// (AppliedEdit, RefusedEdit).
func (e *Editor) applyWorkspaceEdit(label string, raw json.RawMessage) applyResult {
	// Outside the lock: the hook may type in the editor.
	if e.cfg.beforeApply != nil {
		e.cfg.beforeApply(e, label)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.signal()
	var res applyResult
	switch {
	case e.cfg.refuse != nil && e.cfg.refuse(label):
		res = applyResult{FailureReason: "the user declined"}
	case e.cfg.failChange != nil && e.cfg.failChange(label):
		res = e.applyUntilLocked(raw, e.cfg.failAt)
	default:
		res = e.applyLocked(raw)
	}
	if res.Applied {
		e.seen.applied = append(e.seen.applied, label)
	} else {
		e.seen.refused = append(e.seen.refused, refusedEdit{label: label, reason: res.FailureReason})
	}
	return res
}

// applyUntilLocked applies the documentChanges of a WorkspaceEdit
// before the one at index and answers that this one failed (FailChange),
// with e.mu held.
func (e *Editor) applyUntilLocked(raw json.RawMessage, index int) applyResult {
	var we map[string]json.RawMessage
	var dcs []json.RawMessage
	if err := json.Unmarshal(raw, &we); err != nil {
		return applyResult{FailureReason: err.Error()}
	}
	if err := json.Unmarshal(we["documentChanges"], &dcs); err != nil || index >= len(dcs) {
		return e.applyLocked(raw)
	}
	we["documentChanges"], _ = json.Marshal(dcs[:index])
	before, _ := json.Marshal(we)
	if res := e.applyLocked(before); !res.Applied {
		return res
	}
	return applyResult{FailureReason: fmt.Sprintf("change %d failed", index), FailedChange: &index}
}

// applyLocked applies a WorkspaceEdit, with e.mu held.
func (e *Editor) applyLocked(raw json.RawMessage) applyResult {
	var we struct {
		Changes         map[protocol.DocumentURI][]protocol.TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage                            `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return applyResult{FailureReason: err.Error()}
	}
	type op struct {
		kind    string
		rel     string
		version *int32
		edits   []protocol.TextEdit
	}
	var ops []op
	for u, es := range we.Changes {
		ops = append(ops, op{kind: "edit", rel: e.rel(u), edits: es})
	}
	for _, dc := range we.DocumentChanges {
		var head struct {
			Kind         string `json:"kind"`
			URI          protocol.DocumentURI
			TextDocument struct {
				URI     protocol.DocumentURI `json:"uri"`
				Version *int32               `json:"version"`
			} `json:"textDocument"`
			Edits []protocol.TextEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &head); err != nil {
			return applyResult{FailureReason: err.Error()}
		}
		switch head.Kind {
		case "create", "delete":
			ops = append(ops, op{kind: head.Kind, rel: e.rel(head.URI)})
		case "":
			ops = append(ops, op{kind: "edit", rel: e.rel(head.TextDocument.URI), version: head.TextDocument.Version, edits: head.Edits})
		default:
			return applyResult{FailureReason: "unsupported resource operation " + head.Kind}
		}
	}
	e.editVersions = map[string]*int32{}
	for _, o := range ops {
		if o.kind == "edit" {
			e.editVersions[o.rel] = o.version
		}
	}
	// Check every version first: nothing is applied unless all match
	// (or, in an editor that skips newer buffers, those are left out).
	stale := func(o op) bool {
		b, open := e.buffers[o.rel]
		return open && o.version != nil && *o.version != b.version
	}
	kept := ops[:0]
	for _, o := range ops {
		if e.profile.SkipsNewerBuffers && stale(o) && *o.version < e.buffers[o.rel].version {
			continue
		}
		kept = append(kept, o)
	}
	ops = kept
	for _, o := range ops {
		if b := e.buffers[o.rel]; stale(o) {
			return applyResult{FailureReason: fmt.Sprintf("%s is at version %d, the edit is for %d", o.rel, b.version, *o.version)}
		}
	}
	type changed struct {
		rel     string
		version int32
		text    string
	}
	var notify []changed
	for _, o := range ops {
		full := filepath.Join(e.Root, filepath.FromSlash(o.rel))
		switch o.kind {
		case "create":
			os.MkdirAll(filepath.Dir(full), 0o755)
			if _, err := os.Stat(full); err != nil {
				os.WriteFile(full, nil, 0o644)
			}
			continue
		case "delete":
			os.Remove(full)
			delete(e.buffers, o.rel)
			continue
		}
		if b, open := e.buffers[o.rel]; open {
			text, err := applyTextEdits(b.text, o.edits, e.encoding)
			if err != nil {
				return applyResult{FailureReason: err.Error()}
			}
			b.text = text
			b.version++
			notify = append(notify, changed{o.rel, b.version, text})
			continue
		}
		data, err := os.ReadFile(full)
		if err != nil {
			return applyResult{FailureReason: err.Error()}
		}
		text, err := applyTextEdits(string(data), o.edits, e.encoding)
		if err != nil {
			return applyResult{FailureReason: err.Error()}
		}
		os.WriteFile(full, []byte(text), 0o644)
	}
	go func() { // not from the read loop, and in order
		for _, n := range notify {
			// An error here means the session ended meanwhile: the test
			// is over, and there is no one to tell.
			e.sendChange(n.rel, n.version, n.text)
		}
	}()
	return applyResult{Applied: true}
}

// applyTextEdits applies edits that all refer to the original text.
func applyTextEdits(text string, es []protocol.TextEdit, enc edits.Encoding) (string, error) {
	m := edits.NewMapper(text)
	// Editors clamp a position past the last line to the end of the text.
	offset := func(p protocol.Position) (int, error) {
		if int(p.Line) >= m.Lines() {
			return len(text), nil
		}
		return m.Offset(int(p.Line), int(p.Character), enc)
	}
	var tes []edits.TextEdit
	for _, te := range es {
		start, err := offset(te.Range.Start)
		if err != nil {
			return "", err
		}
		end, err := offset(te.Range.End)
		if err != nil {
			return "", err
		}
		tes = append(tes, edits.TextEdit{Start: start, End: end, New: te.NewText})
	}
	slices.SortStableFunc(tes, func(a, b edits.TextEdit) int { return a.Start - b.Start })
	return edits.ApplyEdits(text, tes), nil
}
