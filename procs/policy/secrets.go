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
// DB_PASS, MYSQL_PWD, GOOGLE_APPLICATION_CREDENTIALS, BASIC_AUTH,
// CI_JOB_JWT, SLACK_WEBHOOK_URL; and every URL, URI or DSN (DATABASE_URL,
// MONGODB_URI, REDIS_URL, HTTPS_PROXY: they carry user:password@) but a
// few known to name only a public server. Short words (PASS, PWD, AUTH,
// JWT, KEY, PAT) count only as whole words of the name, so that
// GIT_AUTHOR_NAME, COMPASS_DIR and the shell's own PWD and OLDPWD are
// no secrets.
func secretVariable(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "PRIVATE_KEY", "COOKIE", "WEBHOOK", "CONNECTION_STRING"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	if strings.HasSuffix(n, "KEY") {
		return true
	}
	if n == "PWD" || n == "OLDPWD" {
		return false
	}
	for w := range strings.SplitSeq(n, "_") {
		switch w {
		case "PASS", "PWD", "AUTH", "JWT", "KEY", "PAT", "DSN", "PROXY", "URL", "URI", "CREDS":
			if !publicVariable[n] {
				return true
			}
		}
	}
	return false
}

// publicVariable are variables named like secrets that never hold one:
// the URLs CI systems set for their public servers, and the proxy
// exceptions (host names).
var publicVariable = map[string]bool{
	"NO_PROXY":          true,
	"GITHUB_SERVER_URL": true, "GITHUB_API_URL": true, "GITHUB_GRAPHQL_URL": true,
	"CI_SERVER_URL": true, "CI_API_V4_URL": true, "CI_API_GRAPHQL_URL": true, "CI_PROJECT_URL": true,
	"CI_PIPELINE_URL": true, "CI_JOB_URL": true, "CI_PAGES_URL": true, "CI_ENVIRONMENT_URL": true,
}

// secretNames are base names of files that hold secrets wherever they are.
var secretNames = map[string]bool{
	".netrc": true, "_netrc": true, ".git-credentials": true, ".pgpass": true,
	".npmrc": true, ".pypirc": true, ".env": true, ".envrc": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
	"id_ecdsa_sk": true, "id_ed25519_sk": true,
}

// secretExts are the extensions of key and certificate stores (a .pem
// may hold a private key as well as a certificate).
var secretExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true}

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
	// Names are compared as a case-insensitive file system (macOS,
	// Windows) and Windows read them: .GIT/config, `.git./config`,
	// `.git /config`, GIT~1/config and .env::$DATA are .git/config and
	// .env there.
	base := foldName(path.Base(p))
	if secretNames[base] || strings.HasPrefix(base, ".env.") && !envTemplate(base) || secretExts[path.Ext(base)] {
		return "may hold secrets"
	}
	dir := path.Dir(p)
	for part := range strings.SplitSeq(dir, "/") {
		if secretDirs[foldName(part)] {
			return "may hold secrets"
		}
	}
	if base == "config" && foldName(path.Base(dir)) == ".git" {
		return "may hold secrets (credentials in remote URLs)"
	}
	return ""
}

// foldName is a path element as a file system that ignores case and
// Windows' aliases would take it: lower case, without trailing dots and
// spaces, without an NTFS stream (`name::$DATA`), and git's 8.3 short
// name GIT~1 as .git. Only names that can fold to a secret's (starting
// with `.`, `_`, `i`, `g` or `c`) are folded; the others are returned
// as they are, without allocating.
func foldName(e string) string {
	if e == "" || strings.IndexByte("._iIgGcC", e[0]) < 0 || !needsFold(e) {
		return e
	}
	e = strings.ToLower(e)
	if j := strings.IndexByte(e, ':'); j > 0 {
		e = e[:j] // an NTFS stream: name:stream:$DATA, name::$DATA
	}
	if t := strings.TrimRight(e, ". "); t != "" && strings.Trim(e, ".") != "" {
		e = t
	}
	if e == "git~1" {
		e = ".git"
	}
	return e
}

// needsFold reports whether foldName would change a name.
func needsFold(e string) bool {
	for i := 0; i < len(e); i++ {
		if c := e[i]; 'A' <= c && c <= 'Z' || c == ':' || c == '~' {
			return true
		}
	}
	last := e[len(e)-1]
	return last == '.' || last == ' '
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

// secretPattern reports whether a bash pattern's last element could match
// a secret file's or directory's name, for when the pattern is not
// expanded on disk. As in bash (without dotglob), a name starting with a
// dot is only matched by a pattern that starts with one; case is
// ignored (nocaseglob).
func secretPattern(pat string) bool {
	elems := patternElems(pat)
	last := elems[len(elems)-1]
	if !hasGlobMeta(last) {
		return false // a literal name: judged as a path
	}
	dotted := strings.HasPrefix(last, ".") || strings.HasPrefix(last, `\.`)
	match := func(name string) bool {
		return (dotted || !strings.HasPrefix(name, ".")) && bashMatch(last, name)
	}
	for name := range secretNames {
		if match(name) {
			return true
		}
	}
	for name := range secretDirs {
		if match(name) {
			return true
		}
	}
	return match(".env.local")
}
