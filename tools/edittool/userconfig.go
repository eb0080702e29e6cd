package edittool

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The files that configure the user's programs are protected wherever the
// workspace is: with the home folder opened as the workspace (a set-up the
// README names), a saved ~/.gitconfig with diff.external set makes the
// next `git diff` — which the agent may run unasked — run its program; a
// saved ~/.bashrc runs in the user's next shell. They are found by where
// they are, not what they are called: relative to the real home folder
// (and $XDG_CONFIG_HOME), with symlinks resolved and names folded as a
// case-insensitive file system, or Windows, would.

// Why the files of homeConfigs are protected.
const (
	whyGit      = "git reads it for every command: it can name programs git runs (diff.external, core.pager, core.fsmonitor, aliases), even for `git diff` and `git status`"
	whyShell    = "your shell runs it when it starts"
	whySSH      = "it is ssh's own folder: keys that let someone log in as you, and config that names programs ssh runs"
	whyEditor   = "your editor runs it when it starts"
	whyTool     = "it configures a package manager or build tool: it can name programs and scripts they run, and where they fetch code from"
	whyCreds    = "it holds credentials, and can name programs that fetch them"
	whyNet      = "curl or wget read it for every download: it can send your requests elsewhere or write files"
	whySession  = "your session or systemd runs what it names"
	whyPath     = "it is on your PATH: a program put there runs in place of the one you meant"
	whyTerminal = "a program the agent runs (IPython, tmux, gpg) runs what it names when it starts"
)

// homeConfigs are the user's program configuration, relative to the home
// folder, lower case: a pattern's last element "**" is the folder and
// everything in it. Those under .config are also under $XDG_CONFIG_HOME.
var homeConfigs = []struct{ pattern, why string }{
	{".gitconfig", whyGit}, {".config/git/**", whyGit},
	{".bashrc", whyShell}, {".bash_profile", whyShell}, {".bash_login", whyShell}, {".bash_logout", whyShell},
	{".bash_aliases", whyShell}, {".profile", whyShell}, {".inputrc", whyShell},
	{".zshrc", whyShell}, {".zshenv", whyShell}, {".zprofile", whyShell}, {".zlogin", whyShell}, {".zlogout", whyShell},
	{".kshrc", whyShell}, {".mkshrc", whyShell}, {".cshrc", whyShell}, {".tcshrc", whyShell}, {".login", whyShell},
	{".config/fish/**", whyShell}, {".config/nushell/**", whyShell}, {".oh-my-zsh/**", whyShell},
	{".ssh/**", whySSH},
	{".vimrc", whyEditor}, {".gvimrc", whyEditor}, {".vim/**", whyEditor}, {".config/nvim/**", whyEditor},
	{".local/share/nvim/**", whyEditor}, {".emacs", whyEditor}, {".emacs.el", whyEditor}, {".emacs.d/**", whyEditor},
	{".config/emacs/**", whyEditor}, {".config/doom/**", whyEditor}, {".config/helix/**", whyEditor},
	{".config/kak/**", whyEditor}, {".config/zed/**", whyEditor}, {".config/code/user/**", whyEditor},
	{".npmrc", whyTool}, {".yarnrc", whyTool}, {".yarnrc.yml", whyTool}, {".config/yarn/**", whyTool},
	{".config/npm/**", whyTool}, {".config/pnpm/**", whyTool}, {".bunfig.toml", whyTool},
	{".cargo/config", whyTool}, {".cargo/config.toml", whyTool}, {".cargo/bin/**", whyPath},
	{".config/pip/**", whyTool}, {".pip/**", whyTool}, {".pydistutils.cfg", whyTool}, {".condarc", whyTool},
	{".gradle/**", whyTool}, {".m2/**", whyTool}, {".config/go/env", whyTool}, {".bundle/**", whyTool},
	{".gemrc", whyTool}, {".config/direnv/**", whyShell}, {".direnvrc", whyShell},
	{".pypirc", whyCreds}, {".netrc", whyCreds}, {"_netrc", whyCreds}, {".git-credentials", whyCreds},
	{".docker/**", whyCreds}, {".kube/**", whyCreds}, {".aws/**", whyCreds}, {".azure/**", whyCreds},
	{".config/gcloud/**", whyCreds}, {".config/gh/**", whyCreds}, {".gnupg/**", whyTerminal},
	{".curlrc", whyNet}, {".config/.curlrc", whyNet}, {".wgetrc", whyNet}, {".config/wgetrc", whyNet},
	{".config/systemd/**", whySession}, {".local/share/systemd/**", whySession}, {".config/autostart/**", whySession},
	{".config/environment.d/**", whySession}, {".pam_environment", whySession}, {".xprofile", whySession},
	{".xinitrc", whySession}, {".xsession", whySession}, {".xsessionrc", whySession}, {".crontab", whySession},
	{".local/bin/**", whyPath}, {"bin/**", whyPath}, {"go/bin/**", whyPath},
	{".ipython/**", whyTerminal}, {".tmux.conf", whyTerminal}, {".config/tmux/**", whyTerminal},
}

// userConfigReason says why an edit to abs (absolute, symlinks resolved)
// changes the configuration of the user's programs, or "". The home
// folder is os.UserHomeDir's ($HOME), and $XDG_CONFIG_HOME where set;
// both as written and with their symlinks resolved.
func userConfigReason(abs string) string {
	var homes, configs []string
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		homes = withReal(home)
	}
	if xdg := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(xdg) {
		configs = withReal(xdg)
	}
	for _, home := range homes {
		if rel, ok := relFolded(home, abs); ok {
			if why := matchHomeConfig(rel, ""); why != "" {
				return why
			}
		}
	}
	for _, dir := range configs {
		if rel, ok := relFolded(dir, abs); ok {
			if why := matchHomeConfig(rel, ".config/"); why != "" {
				return why
			}
		}
	}
	return ""
}

// withReal returns dir, clean, and where its symlinks lead when that is
// elsewhere.
func withReal(dir string) []string {
	dir = filepath.Clean(dir)
	out := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		out = append(out, real)
	}
	return out
}

// relFolded returns p relative to dir, slash-separated, each element
// folded (foldName), when p is in dir — compared case-insensitively too.
func relFolded(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
		low, lowDir := strings.ToLower(p), strings.ToLower(dir)
		if rel, err = filepath.Rel(lowDir, low); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
			return "", false
		}
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, part := range parts {
		parts[i] = foldName(part)
	}
	return strings.Join(parts, "/"), true
}

// matchHomeConfig returns the reason of the first homeConfigs pattern
// that rel (folded) matches; with prefix set, only the patterns under it,
// the prefix taken off (for $XDG_CONFIG_HOME, which stands for .config).
func matchHomeConfig(rel, prefix string) string {
	got := strings.Split(rel, "/")
	for _, c := range homeConfigs {
		pat, ok := strings.CutPrefix(c.pattern, prefix)
		if !ok {
			continue
		}
		if matchElements(strings.Split(pat, "/"), got) {
			return c.why
		}
	}
	return ""
}

// matchElements matches path elements against pattern elements (each a
// path.Match pattern); a last "**" matches the rest, none included.
func matchElements(pat, got []string) bool {
	if n := len(pat); n > 0 && pat[n-1] == "**" {
		pat = pat[:n-1]
		if len(got) < len(pat) {
			return false
		}
		got = got[:len(pat)]
	}
	if len(got) != len(pat) {
		return false
	}
	for i := range pat {
		if ok, _ := path.Match(pat[i], got[i]); !ok {
			return false
		}
	}
	return true
}

// foldName is a path element as a file system that ignores case and, as
// Windows does, trailing dots and spaces, would find it: `.GIT.` and
// `.git ` are .git there.
func foldName(name string) string {
	if t := strings.TrimRight(name, ". "); t != "" {
		name = t
	}
	return strings.ToLower(name)
}
