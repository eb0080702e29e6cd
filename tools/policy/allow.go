package policy

import (
	"fmt"
	"path"
	"strings"
)

// builtinAllowed decides whether a command (its name first) is read-only by
// the allowlist: gptme's commands with its flag tables (research/gptme.md
// §7.3) plus a few read-only git and go subcommands. It returns a label for
// the reason, or what keeps it from being allowed, worded to follow the
// command's text.
func builtinAllowed(words []word) (label, problem string) {
	name, args := words[0].val, words[1:]
	check, ok := readOnly[name]
	if !ok {
		return "", " is not on the allowlist"
	}
	label, problem = check(name, args)
	if problem != "" {
		return "", problem
	}
	if name == "echo" {
		return label, ""
	}
	for _, w := range args {
		if p := argumentProblem(w); p != "" {
			return "", ": " + p
		}
	}
	return label, ""
}

// checker checks a read-only command's arguments; it returns its label or a
// problem.
type checker func(name string, args []word) (label, problem string)

var readOnly = map[string]checker{
	"echo": func(string, []word) (string, string) { return "echo", "" },
	"ls":   flags("aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1", "ITw", "all almost-all author escape block-size= ignore-backups color classify file-type format= full-time group-directories-first no-group human-readable si dereference-command-line dereference-command-line-symlink-to-dir hide= hyperlink indicator-style= inode ignore= kibibytes dereference literal numeric-uid-gid hide-control-chars show-control-chars quote-name quoting-style= reverse recursive size sort= time= time-style= tabsize= width= context zero help version"),
	"stat": flags("Lft", "c", "dereference file-system format= printf= terse cached= help version"),
	"cd":   flags("LPe@", "", ""),
	"cat":  flags("AbeEnstTuv", "", "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting help version"),
	"pwd":  flags("LP", "", "logical physical help version"),
	"head": numericFlags("qvz", "cn", "bytes= lines= quiet silent verbose zero-terminated help version"),
	// tail's follow modes never end, so they are left out with their options.
	"tail": numericFlags("qvz", "cn", "bytes= lines= quiet silent verbose zero-terminated help version"),
	"grep": numericFlags("EFGPiyvwxcLloqsbHhnTZzUraRI", "efmABCdD", "extended-regexp fixed-strings basic-regexp perl-regexp regexp= file= ignore-case no-ignore-case word-regexp line-regexp null-data no-messages invert-match version help max-count= byte-offset line-number no-line-number line-buffered with-filename no-filename label= only-matching quiet silent binary-files= text directories= devices= recursive dereference-recursive include= exclude= exclude-from= exclude-dir= files-without-match files-with-matches count initial-tab null before-context= after-context= context= color colour binary"),
	// rg without --pre, --pre-glob, --hostname-bin, -z/--search-zip: they
	// run other programs.
	"rg": flags("aBcFHhiIlLnNoOpqsSuUvVwx0bP", "ABCefgjmMrtTEd", "after-context= before-context= context= binary block-buffered byte-offset case-sensitive color= colors= column context-separator= count count-matches crlf debug dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= file= files files-with-matches files-without-match fixed-strings follow glob= glob-case-insensitive heading no-heading hidden iglob= ignore-case ignore-file= ignore-file-case-insensitive include-zero invert-match json line-buffered line-number no-line-number line-regexp max-columns= max-columns-preview max-count= max-depth= max-filesize= mmap multiline multiline-dotall no-config no-filename no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global no-ignore-messages no-ignore-parent no-ignore-vcs no-messages no-mmap no-pcre2-unicode no-unicode null null-data one-file-system only-matching passthru path-separator= pcre2 pretty quiet regex-size-limit= regexp= replace= search-zip-never smart-case sort= sortr= stats text threads= trim type= type-add= type-clear= type-list type-not= unrestricted vimgrep with-filename word-regexp files-with-matches help version"),
	// ag without --pager and -z/--search-zip.
	"ag": flags("acfilLnoQrsStuUvVw0", "ABCGgmp", "after= before= context= count color no-color column no-column case-sensitive ignore-case smart-case depth= follow fixed-strings files-with-matches files-without-matches file-search-regex= hidden ignore= ignore-dir= literal max-count= numbers no-numbers only-matching path-to-ignore= print-long-lines recurse no-recurse search-binary silent skip-vcs-ignores stats unrestricted vimgrep word-regexp nobreak noheading heading filename nofilename group nogroup null print0 help version"),
	"wc": flags("cmlLw", "", "bytes chars lines max-line-length words files0-from= total= help version"),
	// sort without -o/--output (writes a file), -T/--temporary-directory and
	// --compress-program (runs a program).
	"sort": flags("bdfgiMhnRrVcCmsuz", "ktS", "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort batch-size= check check= debug files0-from= key= merge buffer-size= field-separator= parallel= stable unique zero-terminated help version"),
	// uniq's second operand is an output file, so it takes at most one.
	"uniq": flagsWithOperands("cdDiuz", "fsw", "count repeated all-repeated group skip-fields= ignore-case skip-chars= unique zero-terminated check-chars= help version", 1),
	"cut":  flags("nsz", "bcdf", "bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated help version"),
	// file without -C (compiles a magic file) and -S (turns off its sandbox).
	"file":  flags("bcdEhiklLNnprsvzZ0", "eFfmP", "brief mime mime-type mime-encoding keep-going dereference no-dereference raw special-files uncompress uncompress-noreport extension apple exclude= exclude-quiet= files-from= separator= magic-file= print0 no-pad preserve-date no-buffer help version"),
	"which": flags("as", "", ""),
	"type":  flags("afpPt", "", ""),
	// tree without -o (writes a file).
	"tree": flags("adlfxRqNQpugshDFvtcUrCnAJSX", "LPIHT", "gitignore ignore-case matchdirs metafirst prune info noreport charset= filelimit= si du timefmt= inodes device dirsfirst filesfirst sort= help version"),
	"du":   flags("abcDhHkLlmPsSx0", "dBtX", "all apparent-size block-size= bytes total dereference-args max-depth= human-readable inodes count-links dereference no-dereference separate-dirs si summarize threshold= time time-style= exclude= exclude-from= one-file-system null files0-from= help version"),
	"df":   flags("ahHiklPTv", "Btx", "all block-size= human-readable si inodes local output portability print-type sync no-sync total type= exclude-type= help version"),
	// Pure path arithmetic.
	"basename": flags("az", "s", "multiple suffix= zero help version"),
	"dirname":  flags("z", "", "zero help version"),
	"realpath": flags("emLPqsz", "", "canonicalize-existing canonicalize-missing logical physical quiet strip no-symlinks zero relative-to= relative-base= help version"),
	"readlink": flags("femnqsvz", "", "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero help version"),
	"find":     findAllowed,
	"git":      gitAllowed,
	"go":       goAllowed,
	// command -v NAME and -V look a name up; command with a command to run
	// is a wrapper and never gets here.
	"command": flags("pvV", "", ""),
}

// flags returns a checker for a GNU-style command: short flags that may be
// bundled, short flags taking a value, and long flags (a trailing = means
// it takes a value, as --name=v or --name v).
func flags(short, shortValue, long string) checker {
	return flagsWithOperands(short, shortValue, long, -1)
}

// flagsWithOperands is flags for a command that takes at most max operands
// (-1: any), none of them a pattern.
func flagsWithOperands(short, shortValue, long string, max int) checker {
	t := flagTable{short: short, shortValue: shortValue, long: map[string]bool{}, maxOperands: max}
	for _, f := range strings.Fields(long) {
		name, takes := strings.CutSuffix(f, "=")
		t.long[name] = takes
	}
	return t.check
}

// numericFlags is flags for head, tail and grep, which also take -NUM.
func numericFlags(short, shortValue, long string) checker {
	c := flags(short, shortValue, long)
	return func(name string, args []word) (string, string) {
		rest := make([]word, 0, len(args))
		for _, w := range args {
			if len(w.val) > 1 && w.val[0] == '-' && isDigits(w.val[1:]) {
				continue
			}
			rest = append(rest, w)
		}
		return c(name, rest)
	}
}

type flagTable struct {
	short, shortValue string
	long              map[string]bool
	maxOperands       int
}

func (t flagTable) check(name string, args []word) (string, string) {
	var operands []word
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if len(v) < 2 || v[0] != '-' || strings.Trim(v, "-") == "" {
			operands = append(operands, args[i]) // a run of dashes is not a flag
			continue
		}
		if !args[i].known {
			return "", ": an option with an expansion is only known when it runs"
		}
		if strings.HasPrefix(v, "--") {
			long, _, hasValue := strings.Cut(v[2:], "=")
			takes, ok := t.long[long]
			if !ok {
				return "", fmt.Sprintf(": flag `--%s` is not permitted for %s", long, name)
			}
			if takes && !hasValue {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(t.shortValue, c) >= 0 {
				if j+1 == len(v) {
					i++
				}
				break
			}
			if strings.IndexByte(t.short, c) < 0 {
				return "", fmt.Sprintf(": flag `-%c` is not permitted for %s", c, name)
			}
		}
	}
	if t.maxOperands >= 0 {
		if len(operands) > t.maxOperands {
			// uniq's second operand is the file it writes.
			return "", fmt.Sprintf(": %s with more than %d operand writes a file", name, t.maxOperands)
		}
		for _, w := range operands {
			if w.glob {
				return "", fmt.Sprintf(": %s takes no pattern operands", name)
			}
		}
	}
	return name, ""
}

// findPredicates are find's allowed options, tests and actions, with the
// number of values each takes. Left out: -exec, -execdir, -ok, -okdir
// (run commands), -delete, and -fprint, -fprint0, -fprintf, -fls (write
// files).
var findPredicates = map[string]int{
	"H": 0, "L": 0, "P": 0, "D": 1, "O0": 0, "O1": 0, "O2": 0, "O3": 0,
	"name": 1, "iname": 1, "path": 1, "ipath": 1, "wholename": 1, "iwholename": 1,
	"regex": 1, "iregex": 1, "regextype": 1, "type": 1, "xtype": 1, "size": 1,
	"mtime": 1, "mmin": 1, "atime": 1, "amin": 1, "ctime": 1, "cmin": 1, "used": 1,
	"newer": 1, "anewer": 1, "cnewer": 1, "maxdepth": 1, "mindepth": 1,
	"perm": 1, "user": 1, "group": 1, "uid": 1, "gid": 1, "links": 1, "inum": 1,
	"samefile": 1, "lname": 1, "ilname": 1, "fstype": 1, "context": 1, "printf": 1,
	"files0-from": 1,
	"depth":       0, "prune": 0, "print": 0, "print0": 0, "ls": 0, "empty": 0,
	"executable": 0, "readable": 0, "writable": 0, "nouser": 0, "nogroup": 0,
	"false": 0, "true": 0, "not": 0, "a": 0, "o": 0, "and": 0, "or": 0,
	"follow": 0, "mount": 0, "xdev": 0, "noleaf": 0, "daystart": 0, "quit": 0,
	"ignore_readdir_race": 0, "noignore_readdir_race": 0, "help": 0, "version": 0,
}

func findAllowed(name string, args []word) (string, string) {
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if len(v) < 2 || v[0] != '-' {
			continue // a start path, or ! ( ) ,
		}
		if !args[i].known {
			return "", ": an option with an expansion is only known when it runs"
		}
		n, ok := findPredicates[v[1:]]
		if !ok && newerXY(v[1:]) {
			n, ok = 1, true
		}
		if !ok {
			return "", fmt.Sprintf(": `%s` is not permitted for find", v)
		}
		i += n
	}
	return name, ""
}

// newerXY reports find's -newerXY tests, such as -newermt.
func newerXY(p string) bool {
	xy, ok := strings.CutPrefix(p, "newer")
	return ok && len(xy) == 2 && strings.IndexByte("aBcm", xy[0]) >= 0 && strings.IndexByte("aBcmt", xy[1]) >= 0
}

// gitReadOnly are the git subcommands that only read the repository.
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true,
	"ls-files": true, "rev-parse": true, "blame": true,
}

// gitAllowed allows read-only git subcommands. Global options that could
// run other programs or point git elsewhere (-c, --exec-path, --git-dir,
// --work-tree) are left out, and so are the flags that write files
// (--output) or run configured programs (--ext-diff).
func gitAllowed(name string, args []word) (string, string) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].val, "-"); i++ {
		switch v := args[i].val; v {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs":
		case "-C":
			i++
		default:
			return "", fmt.Sprintf(": git option `%s` is not permitted", v)
		}
	}
	if i >= len(args) || !args[i].plain() || !gitReadOnly[args[i].val] {
		return "", " is not on the allowlist"
	}
	sub := args[i].val
	for _, w := range args[i+1:] {
		v := w.val
		if v == "--" {
			break
		}
		if !w.known && strings.HasPrefix(v, "-") {
			return "", ": an option with an expansion is only known when it runs"
		}
		if o, _, _ := strings.Cut(v, "="); o == "--output" || o == "--ext-diff" {
			return "", fmt.Sprintf(": flag `%s` is not permitted for git %s", o, sub)
		}
	}
	return "git " + sub, ""
}

// goReadOnly are the go subcommands that only report, with their allowed
// flags (true: takes a value). go env -w/-u write the configuration;
// go list -export, -compiled and -toolexec build or run tools.
var goReadOnly = map[string]map[string]bool{
	"version": {"m": false, "v": false, "json": false},
	"env":     {"json": false, "changed": false},
	"list": {"json": false, "f": true, "m": false, "e": false, "deps": false, "test": false,
		"find": false, "versions": false, "retracted": false, "u": false, "tags": true, "reuse": true},
}

func goAllowed(name string, args []word) (string, string) {
	if len(args) == 0 || !args[0].plain() {
		return "", " is not on the allowlist"
	}
	sub := args[0].val
	table, ok := goReadOnly[sub]
	if !ok {
		return "", " is not on the allowlist"
	}
	for i := 1; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			break
		}
		if len(v) < 2 || v[0] != '-' {
			continue
		}
		if !args[i].known {
			return "", ": an option with an expansion is only known when it runs"
		}
		flag, _, hasValue := strings.Cut(strings.TrimPrefix(v[1:], "-"), "=")
		takes, ok := table[flag]
		if !ok {
			return "", fmt.Sprintf(": flag `-%s` is not permitted for go %s", flag, sub)
		}
		if takes && !hasValue {
			i++
		}
	}
	return "go " + sub, ""
}

// systemDirs are read by no allowed command (gptme's list).
var systemDirs = []string{"/etc", "/root", "/proc", "/sys", "/boot"}

// argumentProblem says why an argument of an allowed command, or a file it
// reads, may reach what it should not: a system directory, the root, the
// home directory, or outside the working directory; or why its value
// cannot be known before it runs. It returns "" for a harmless one.
func argumentProblem(w word) string {
	if !w.known {
		return "an argument with an expansion is only known when it runs"
	}
	v := w.val
	switch {
	case w.tilde:
		return fmt.Sprintf("`%s` is in the home directory", v)
	case w.brace && (strings.ContainsAny(v, "/~") || strings.Contains(v, "..")):
		return fmt.Sprintf("`%s` is a brace expansion that can reach outside the working directory", v)
	case w.glob && strings.Contains(v, "/") && strings.HasPrefix(strings.TrimLeft(v, "-"), "/"):
		return fmt.Sprintf("`%s` is a pattern that can match system paths", v)
	}
	candidates := []string{v}
	if _, after, ok := strings.Cut(v, "="); ok {
		candidates = append(candidates, after)
	}
	if len(v) > 2 && v[0] == '-' && v[1] != '-' {
		candidates = append(candidates, v[2:]) // a value stuck to a short flag
	}
	for _, c := range candidates {
		if c == "/" {
			return "`/` is the root directory"
		}
		for _, dir := range systemDirs {
			if c == dir || strings.HasPrefix(c, dir+"/") {
				return fmt.Sprintf("`%s` is in a system directory", v)
			}
		}
	}
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '/' || r == '=' || r == ':' }) {
		if part == ".." {
			return fmt.Sprintf("`%s` leaves the working directory", v)
		}
		if w.glob && part[0] == '.' {
			if ok, _ := path.Match(part, ".."); ok {
				return fmt.Sprintf("`%s` can match `..`", v)
			}
		}
	}
	return ""
}
