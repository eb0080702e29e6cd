package lsp

// Buffers is the turn's tools.Env Buffers: the text of every open buffer
// of a workspace file, by its path, so rag searches (and quotes) what the
// editor holds, unsaved changes included.
func (w *editorWorkspace) Buffers() map[string]string {
	out := map[string]string{}
	for _, d := range w.s.docs.Files() {
		if rel, err := w.s.relPath(d); err == nil {
			out[rel] = d.Text()
		}
	}
	return out
}
