package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/documents"
)

// Paths: which file a document URI names, and where it lies in the
// workspace. A file is named by its absolute name with symlinks resolved
// (cleanFile), as the documents store keys its buffers.

// cleanFile is name with its symlinks resolved (cleaned only when it
// cannot be resolved: a file not made yet).
func cleanFile(name string) string {
	if real, err := filepath.EvalSymlinks(name); err == nil {
		return real
	}
	return filepath.Clean(name)
}

// relPathOfURI returns a file URI's path relative to the workspace root.
func (sess *session) relPathOfURI(u protocol.DocumentURI) (string, error) {
	file, err := fileOfURI(u)
	if err != nil {
		return "", err
	}
	return relPathIn(sess.root, documents.Document{URI: u, Path: cleanFile(file)})
}

// relPath returns a document's path relative to the workspace root.
func (s *Server) relPath(d documents.Document) (string, error) { return relPathIn(s.session().root, d) }

// relPathIn returns a document's path relative to root, the workspace's.
func relPathIn(root string, d documents.Document) (string, error) {
	if d.Path == "" {
		return "", fmt.Errorf("%s is not a file on disk (an untitled or virtual buffer): agentls works on the workspace's files; save it into the workspace first", d.URI)
	}
	if root == "" {
		return "", fmt.Errorf("%s: there is no workspace folder; open a folder in the editor", d.Path)
	}
	rel, err := filepath.Rel(root, d.Path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside the workspace %s", d.Path, root)
	}
	return filepath.ToSlash(rel), nil
}

// fileOfURI returns the file a document URI names. Only a file: URI with
// an absolute path (on this host) names one: go.lsp.dev/uri's Filename
// panics on the others, and editors send plenty (VS Code's
// untitled:Untitled-1, vim-fugitive's fugitive://, http: or git: views).
func fileOfURI(u protocol.DocumentURI) (string, error) {
	parsed, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("%q is not a URI: %w", u, err)
	}
	if !strings.EqualFold(parsed.Scheme, "file") {
		return "", fmt.Errorf("%s is not a file (its scheme is %q, not file)", u, parsed.Scheme)
	}
	if parsed.Host != "" && !strings.EqualFold(parsed.Host, "localhost") {
		return "", fmt.Errorf("%s names a file on another host (%s)", u, parsed.Host)
	}
	name := parsed.Path
	if len(name) > 1 && filepath.VolumeName(name[1:]) != "" {
		name = name[1:] // file:///C:/x on Windows
	}
	name = filepath.FromSlash(name)
	if !filepath.IsAbs(name) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%s has no absolute file name", u)
	}
	return name, nil
}

// workspaceRoot returns the folder a root or workspace-folder URI names
// (s.mu held, in initialize). One that is no folder on disk (untitled:, a
// remote scheme) is no root: the server runs without a workspace, and the
// user is told once initialized.
func (s *Server) workspaceRoot(u protocol.DocumentURI) string {
	root, err := fileOfURI(u)
	if err != nil {
		s.log.Warn("the workspace folder is not a folder on disk: no workspace", "uri", u, "why", err)
		s.pendingProblems = append(s.pendingProblems, fmt.Sprintf("the workspace folder %s is not a folder on disk, so agentls runs without a workspace (edits need one): open a local folder", u))
		return ""
	}
	return root
}
