package edittool

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/approval"
)

// Protected files configure what runs: git's own files decide which
// programs git starts (core.fsmonitor, diff drivers, hooks) — and `git
// status` is a command the agent may run unasked; agentls's own folder
// holds its settings; editors run what their project configuration says.
// An edit the agent wrote is as good as a command when it lands there, so
// it needs the user's approval like one (DESIGN §8a): the runner asks
// before it sends or writes the edit.

// A ProtectedEdit is a file of a batch that needs the user's approval.
type ProtectedEdit struct {
	Path   string // relative to the root, slash-separated
	Reason string // what the file decides, for the question
}

// protectedNames are files, wherever they are, that make a program run.
var protectedNames = map[string]string{
	".gitattributes": "it can make git run programs (diff and filter drivers) on `git diff`, `git log -p` and `git show`",
	".gitmodules":    "it says where git fetches submodules from and how",
	".envrc":         "direnv runs it in your shell when you enter the folder",
	".nvim.lua":      "Neovim runs it when it starts in the folder (exrc)",
	".nvimrc":        "Neovim runs it when it starts in the folder (exrc)",
	".exrc":          "Vim and Neovim run it when they start in the folder (exrc)",
	".dir-locals.el": "Emacs evaluates it for files in the folder",
	".lazy.lua":      "lazy.nvim runs it when Neovim starts in the folder",
	// Read from the project's folder by the tools that run there.
	".npmrc":      "npm reads it in the project's folder: it can name the shell and scripts npm runs, and where it fetches code from",
	".yarnrc":     "yarn reads it in the project's folder: it can name the program yarn runs",
	".yarnrc.yml": "yarn reads it in the project's folder: its yarnPath is a program yarn runs",
	"pip.conf":    "pip reads it in a virtual environment: it says where pip fetches code from",
}

// protectedFolders are folders whose files configure what runs.
var protectedFolders = map[string]string{
	".git":     "it is git's own data: its config and hooks decide which programs git runs, even for `git status`",
	".agentls": "it is agentls's own folder: its settings decide what the agent may run and where your code is sent",
	".vscode":  "VS Code's project settings and tasks can make it run programs",
	".helix":   "Helix's project languages.toml says which programs it starts as language servers",
	".zed":     "Zed's project settings can make it run programs",
	".idea":    "JetBrains IDEs' project files can make them run programs",
	".cargo":   "cargo reads its config in the project's folder: it can name programs cargo runs (target runners, rustc wrappers)",
}

// ProtectedReason says why an edit to rel (relative to root, as the batch
// names it) needs the user's approval, or "" when it does not. The path
// is checked as written and as it resolves (edits.ResolveInRoot: a
// symlink in the workspace that points at .git is .git), its names
// folded as a case-insensitive file system, or Windows, would (.GIT. is
// .git). private are folders of the user's own (the user's agentls
// settings and state) that are protected wherever the workspace is, for
// when the workspace holds them (a home folder opened as the workspace);
// so are the files that configure the user's programs (userConfigReason:
// ~/.gitconfig, shell rc files, ~/.ssh, …).
func ProtectedReason(root, rel string, private ...string) string {
	if why := protectedByName(rel); why != "" {
		return why
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	abs, err := edits.ResolveInRoot(realRoot, rel)
	if err != nil {
		// Outside the root, or unreadable: the edit is refused anyway;
		// judge the path as written.
		abs = filepath.Join(realRoot, filepath.FromSlash(rel))
	} else if r, err := filepath.Rel(realRoot, abs); err == nil {
		if why := protectedByName(filepath.ToSlash(r)); why != "" {
			return why
		}
	}
	for _, dir := range private {
		if dir == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); (err == nil && within(abs, real)) || within(abs, dir) {
			return "it is your own agentls settings or state, which decide what the agent may do"
		}
	}
	return userConfigReason(abs)
}

func protectedByName(rel string) string {
	rel = path.Clean(filepath.ToSlash(rel))
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		// Folded: on a case-insensitive file system .GIT is .git, and on
		// Windows so are `.git.` and `.git `.
		p = foldName(p)
		if why, ok := protectedFolders[p]; ok && (i < len(parts)-1 || p == ".git") {
			// A folder's files; a file named .git is a gitdir pointer,
			// which says where the repository (and its config) is.
			return why
		}
		if i == len(parts)-1 {
			if why, ok := protectedNames[p]; ok {
				return why
			}
		}
	}
	return ""
}

func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

// Protected returns the files of the batch that need the user's approval.
func (b *Batch) Protected(private ...string) []ProtectedEdit {
	var out []ProtectedEdit
	for _, c := range b.Changes.Effective() {
		// Effective changes are clean relative paths (CleanPath).
		if why := ProtectedReason(b.Root, c.Path, private...); why != "" {
			out = append(out, ProtectedEdit{Path: c.Path, Reason: why})
		}
	}
	return out
}

// ConfirmProtected asks the user, through confirm, before the batch's
// protected edits are applied, showing them as a diff; one question for
// all of them. It returns nil when the batch has none or the user
// approved, and otherwise an error for the model that says nothing was
// applied (wrapping approval.ErrStopTurn when the user stopped the turn).
// A nil confirm, or one answering approval.ErrNobodyToAsk, means nobody
// can be asked: protected edits are refused.
func (b *Batch) ConfirmProtected(ctx context.Context, confirm approval.Confirmer, private ...string) error {
	prot := b.Protected(private...)
	if len(prot) == 0 {
		return nil
	}
	var names, reasons []string
	for _, p := range prot {
		names = append(names, p.Path)
		reasons = append(reasons, p.Path+": "+p.Reason)
	}
	var diff strings.Builder
	for _, c := range b.Changes.Effective() {
		if slices.ContainsFunc(prot, func(p ProtectedEdit) bool { return p.Path == c.Path }) {
			diff.WriteString(c.UnifiedDiff())
		}
	}
	what := strings.Join(names, ", ")
	q := approval.Question{Action: what, Reason: strings.Join(reasons, "; "), Edit: true, Detail: diff.String()}
	err := approval.Gate{Confirmer: confirm}.Ask(ctx, q)
	if errors.Is(err, approval.ErrStopTurn) {
		return fmt.Errorf("editing %s: %w", what, approval.ErrStopTurn)
	}
	var r *approval.Refusal
	if err != nil && !errors.As(err, &r) {
		return fmt.Errorf("editing %s: %w", what, err)
	}
	return approval.Say(err, func(r *approval.Refusal) string {
		switch r.Reason {
		case approval.NobodyToAsk:
			return fmt.Sprintf("editing %s needs the user's approval (%s), and nobody can be asked here; nothing was applied. Do without it, or ask the user to make the change", what, q.Reason)
		case approval.PolicyDenies:
			return fmt.Sprintf("editing %s needs the user's approval (%s), and the approval policy denies that without asking anyone (approvalPolicy: deny); nothing was applied. Do without it, or ask the user to make the change", what, q.Reason)
		case approval.TimedOut:
			return fmt.Sprintf("nobody answered in time whether to edit %s (%s); nothing was applied. Do without it, or ask the user", what, q.Reason)
		}
		return fmt.Sprintf("the user did not approve editing %s (%s); nothing was applied. Do without it, or ask the user", what, q.Reason)
	})
}
