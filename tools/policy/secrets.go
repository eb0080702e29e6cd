package policy

import (
	"path"
	"strings"
)

// Secrets must not reach the model's context unasked: what a command
// prints is what the model reads, and a prompt-injected model would pass
// it on. So an allowed command may neither expand a variable named like a
// secret nor read a file that holds them, wherever it is (the workspace
// too: a hostile repository ships symlinks and dotfiles).

// secretVariable reports a variable named like one that holds a secret:
// OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD,
// GOOGLE_APPLICATION_CREDENTIALS, DATABASE_URL (with its password).
func secretVariable(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasSuffix(n, "KEY") || strings.HasSuffix(n, "_PAT") || strings.HasSuffix(n, "_DSN") || strings.HasSuffix(n, "DATABASE_URL") {
		return true
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "API_KEY", "APIKEY", "PRIVATE_KEY", "COOKIE"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// secretNames are base names of files that hold secrets wherever they are.
var secretNames = map[string]bool{
	".netrc": true, "_netrc": true, ".git-credentials": true, ".pgpass": true,
	".npmrc": true, ".pypirc": true, ".env": true, ".envrc": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
	"id_ecdsa_sk": true, "id_ed25519_sk": true,
}

// secretDirs are directory names whose contents are secrets wherever they
// are (a copy of ~/.ssh in a repository is still keys).
var secretDirs = map[string]bool{
	".ssh": true, ".gnupg": true, ".aws": true, ".azure": true, ".kube": true, ".docker": true,
}

// secretSystemPaths hold secrets outside any home: password hashes, host
// keys, other processes' environments and memory, mounted service tokens.
var secretSystemPaths = []string{
	"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh", "/etc/ssl/private", "/root", "/proc", "/run/secrets", "/var/run/secrets",
}

// secretPath says why an absolute, clean path may hold secrets, or "".
// home is the user's home directory ("" if unknown).
func secretPath(p, home string) string {
	if home != "" && home != "/" && len(p) > len(home) && p[len(home)] == '/' && strings.HasPrefix(p, home) {
		first, _, _ := strings.Cut(p[len(home)+1:], "/")
		if strings.HasPrefix(first, ".") {
			return "is a dotfile in the home directory, which may hold secrets"
		}
	}
	for _, s := range secretSystemPaths {
		if within(p, s) {
			return "may hold secrets"
		}
	}
	base := path.Base(p)
	if secretNames[base] || strings.HasPrefix(base, ".env.") && !envTemplate(base) {
		return "may hold secrets"
	}
	for part := range strings.SplitSeq(path.Dir(p), "/") {
		if secretDirs[part] {
			return "may hold secrets"
		}
	}
	if base == "config" && path.Base(path.Dir(p)) == ".git" {
		return "may hold secrets (credentials in remote URLs)"
	}
	return ""
}

// envTemplate reports the committed examples of a .env file, which hold
// no secrets by convention.
func envTemplate(base string) bool {
	switch path.Ext(base) {
	case ".example", ".sample", ".template", ".dist":
		return true
	}
	return false
}

// secretPattern reports whether a glob's last element could match a
// secret file's name, for when the glob cannot be expanded.
// As in bash, a name starting with a dot is only matched by a pattern
// that starts with one.
func secretPattern(pattern string) bool {
	last := path.Base(pattern)
	if !strings.HasPrefix(last, ".") {
		return matchesSecretName(last)
	}
	for name := range secretNames {
		if ok, _ := path.Match(last, name); ok {
			return true
		}
	}
	for name := range secretDirs {
		if ok, _ := path.Match(last, name); ok {
			return true
		}
	}
	ok, _ := path.Match(last, ".env.local")
	return ok
}

// matchesSecretName reports a pattern matching a secret name that does
// not start with a dot (id_rsa).
func matchesSecretName(pattern string) bool {
	for name := range secretNames {
		if ok, _ := path.Match(pattern, name); ok && !strings.HasPrefix(name, ".") {
			return true
		}
	}
	return false
}
