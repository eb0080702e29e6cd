package policy

import "path/filepath"

// A SecretRule is the shell policy's rule for files that may hold
// secrets (secretPath: .env files, keys, credential stores, the home
// folder's dotfiles when the workspace is the home folder), for the read
// tools (read, rag, view_image): what `cat` may not show the model
// unasked, they may not either.
type SecretRule struct {
	ws workspace
}

// NewSecretRule returns the rule for a workspace: root is its folder,
// absolute ("" if none); home is the user's home folder ("":
// os.UserHomeDir).
func NewSecretRule(root, home string) SecretRule {
	if !filepath.IsAbs(root) {
		root = ""
	}
	ws, _ := newWorkspace(root, home) // a root that is not absolute was dropped above
	return SecretRule{ws: ws}
}

// File says why the model reading the file at abs may put secrets into
// its context, or "" when it does not. The path is judged as written
// and, when it exists, with its symlinks resolved: a link named
// notes.txt that leads to .env is .env.
func (r SecretRule) File(abs string) string {
	p := filepath.ToSlash(filepath.Clean(abs))
	if s := r.ws.secret(p); s != "" {
		return s
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		if real = filepath.ToSlash(real); real != p {
			return r.ws.secret(real)
		}
	}
	return ""
}

// Name is File without the disk: the path as written, for a listing
// that makes many checks and follows no symlinks (rag's).
func (r SecretRule) Name(abs string) string {
	return r.ws.secret(filepath.ToSlash(filepath.Clean(abs)))
}
