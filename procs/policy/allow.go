package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// builtinAllowed decides whether a command (its name first) is read-only by
// the allowlist: gptme's commands with its flag tables (research/gptme.md
// §7.3) plus a few read-only git and go subcommands, reading only inside
// the workspace and no secrets (workspace.go). It returns a label for the
// reason, or what keeps it from being allowed, worded to follow the
// command's text.
func (a *analyzer) builtinAllowed(words []word) (label, problem string) {
	name, args := words[0].val, words[1:]
	cmd, ok := readOnly[name]
	if !ok {
		return "", " is not on the allowlist"
	}
	label, paths, problem := cmd.check(name, args)
	if problem != "" {
		return "", problem
	}
	if name == "echo" {
		// echo reads no file, but bash lists directories to expand its
		// patterns, and the names it finds are printed.
		for _, w := range args {
			if p := a.listProblem(w); p != "" {
				return "", ": " + p
			}
		}
		return label, ""
	}
	// What the shell expands is checked wherever it stands: a pattern
	// becomes file names, whatever option it is the value of.
	for _, w := range args {
		if !w.plain() {
			if p := argumentProblem(w); p != "" {
				return "", ": " + p
			}
		}
	}
	if !cmd.reads && name != "cd" {
		return label, ""
	}
	if name == "git" {
		saved := a.dirs
		a.dirs = a.gitDirs(args)
		defer func() { a.dirs = saved }()
	}
	for _, w := range args {
		if w.glob && !slices.Contains(paths, w) {
			paths = append(paths, w)
		}
	}
	for _, w := range paths {
		if p := argumentProblem(w); p != "" {
			return "", ": " + p
		}
		if p := a.readProblem(w); p != "" {
			return "", ": " + p
		}
	}
	if p := a.dirProblem(); p != "" && cmd.reads {
		return "", " " + p
	}
	if name == "git" {
		if p := a.repositoryProblem(); p != "" {
			return "", ": " + p
		}
	}
	if name == "cd" {
		return a.cd(args)
	}
	return label, ""
}

// cd checks a `cd` whose target was checked as a path, and follows it.
func (a *analyzer) cd(args []word) (string, string) {
	var target *word
	for i := range args {
		if v := args[i].val; v == "-" || len(v) < 2 || v[0] != '-' {
			target = &args[i]
		}
	}
	switch {
	case target == nil:
		return "", " goes to the home directory, outside the workspace"
	case target.val == "-":
		return "", " goes back to the previous directory, which is only known when it runs"
	case a.ws.cdpath && !path.IsAbs(target.val) && !dotted(target.val):
		return "", " may go to a directory of CDPATH (set in the environment) instead; write ./" + target.val
	}
	a.changeDir(target.val)
	return "cd", ""
}

// dotted reports a relative path that bash's cd takes from the current
// directory, never from CDPATH: ".", "..", "./x", "../x".
func dotted(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// command is a read-only command: how its arguments are checked and
// whether it reads files or its current directory.
type command struct {
	check checker
	// reads marks a command that reads its path arguments or, without
	// them, its current directory; the others (echo, basename, which…)
	// only print their arguments or look names up.
	reads bool
}

// checker checks a read-only command's arguments; it returns its label
// and the arguments that name files it reads, or a problem.
type checker func(name string, args []word) (label string, paths []word, problem string)

func reading(c checker) command  { return command{check: c, reads: true} }
func printing(c checker) command { return command{check: c} }

var readOnly = map[string]command{
	"echo": printing(func(string, []word) (string, []word, string) { return "echo", nil, "" }),
	"ls":   reading(flags("aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1", "ITw", "all almost-all author escape block-size= ignore-backups color classify file-type format= full-time group-directories-first no-group human-readable si dereference-command-line dereference-command-line-symlink-to-dir hide= hyperlink indicator-style= inode ignore= kibibytes dereference literal numeric-uid-gid hide-control-chars show-control-chars quote-name quoting-style= reverse recursive size sort= time= time-style= tabsize= width= context zero help version")),
	"stat": reading(flags("Lft", "c", "dereference file-system format= printf= terse cached= help version")),
	// cd's target is checked like a path it reads.
	"cd":   printing(flags("LPe@", "", "")),
	"cat":  reading(flags("AbeEnstTuv", "", "show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting help version")),
	"pwd":  printing(flags("LP", "", "logical physical help version")),
	"head": reading(numericFlags("qvz", "cn", "bytes= lines= quiet silent verbose zero-terminated help version")),
	// tail's follow modes never end, so they are left out with their options.
	"tail": reading(numericFlags("qvz", "cn", "bytes= lines= quiet silent verbose zero-terminated help version")),
	// grep without -R/--dereference-recursive: they follow symlinks out
	// of the tree.
	"grep": reading(numericFlags("EFGPiyvwxcLloqsbHhnTZzUraI", "efmABCdD", "extended-regexp fixed-strings basic-regexp perl-regexp regexp= file= ignore-case no-ignore-case word-regexp line-regexp null-data no-messages invert-match version help max-count= byte-offset line-number no-line-number line-buffered with-filename no-filename label= only-matching quiet silent binary-files= text directories= devices= recursive include= exclude= exclude-from= exclude-dir= files-without-match files-with-matches count initial-tab null before-context= after-context= context= color colour binary",
		readsFiles("f", "file exclude-from"), patternFirst("ef", "regexp file"))),
	// rg without --pre, --pre-glob, --hostname-bin, -z/--search-zip: they
	// run other programs; without -L/--follow, which leaves the tree
	// through symlinks.
	"rg": reading(flags("aBcFHhiIlnNoOpqsSuUvVwx0bP", "ABCefgjmMrtTEd", "after-context= before-context= context= binary block-buffered byte-offset case-sensitive color= colors= column context-separator= count count-matches crlf debug dfa-size-limit= encoding= engine= field-context-separator= field-match-separator= file= files files-with-matches files-without-match fixed-strings glob= glob-case-insensitive heading no-heading hidden iglob= ignore-case ignore-file= ignore-file-case-insensitive include-zero invert-match json line-buffered line-number no-line-number line-regexp max-columns= max-columns-preview max-count= max-depth= max-filesize= mmap multiline multiline-dotall no-config no-filename no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global no-ignore-messages no-ignore-parent no-ignore-vcs no-messages no-mmap no-pcre2-unicode no-unicode null null-data one-file-system only-matching passthru path-separator= pcre2 pretty quiet regex-size-limit= regexp= replace= search-zip-never smart-case sort= sortr= stats text threads= trim type= type-add= type-clear= type-list type-not= unrestricted vimgrep with-filename word-regexp files-with-matches help version",
		readsFiles("f", "file ignore-file"), patternFirst("ef", "regexp file"), listsFiles("files", "type-list"))),
	// ag without --pager and -z/--search-zip; without -f/--follow.
	"ag": reading(flags("acilLnoQrsStuUvVw0", "ABCGgmp", "after= before= context= count color no-color column no-column case-sensitive ignore-case smart-case depth= fixed-strings files-with-matches files-without-matches file-search-regex= hidden ignore= ignore-dir= literal max-count= numbers no-numbers only-matching path-to-ignore= print-long-lines recurse no-recurse search-binary silent skip-vcs-ignores stats unrestricted vimgrep word-regexp nobreak noheading heading filename nofilename group nogroup null print0 help version",
		readsFiles("p", "path-to-ignore"), patternFirst("", ""), listsFiles("g", ""))),
	// wc, sort and du without --files0-from: it reads the names of the
	// files to open from a file, which cannot be checked.
	"wc": reading(flags("cmlLw", "", "bytes chars lines max-line-length words total= help version")),
	// sort without -o/--output (writes a file), -T/--temporary-directory and
	// --compress-program (runs a program).
	"sort": reading(flags("bdfgiMhnRrVcCmsuz", "ktS", "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort batch-size= check check= debug key= merge buffer-size= field-separator= parallel= stable unique zero-terminated help version",
		readsFiles("", "random-source"))),
	// uniq's second operand is an output file, so it takes at most one.
	"uniq": reading(flags("cdDiuz", "fsw", "count repeated all-repeated group skip-fields= ignore-case skip-chars= unique zero-terminated check-chars= help version", maxOperands(1))),
	"cut":  reading(flags("nsz", "bcdf", "bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated help version")),
	// file without -C (compiles a magic file), -S (turns off its sandbox)
	// and -f/--files-from (names to open, read from a file).
	"file":  reading(flags("bcdEhiklLNnprsvzZ0", "eFmP", "brief mime mime-type mime-encoding keep-going dereference no-dereference raw special-files uncompress uncompress-noreport extension apple exclude= exclude-quiet= separator= magic-file= print0 no-pad preserve-date no-buffer help version", readsFiles("m", "magic-file"))),
	"which": printing(flags("as", "", "")),
	"type":  printing(flags("afpPt", "", "")),
	// tree without -o (writes a file), -R (writes 00Tree.html in every
	// directory) and -l (follows symlinks out of the tree).
	"tree": reading(flags("adfxqNQpugshDFvtcUrCnAJSX", "LPIHT", "gitignore ignore-case matchdirs metafirst prune info noreport charset= filelimit= si du timefmt= inodes device dirsfirst filesfirst sort= help version")),
	// du without -L/--dereference (follows symlinks out of the tree).
	"du": reading(flags("abcDhHklmPsSx0", "dBtX", "all apparent-size block-size= bytes total dereference-args max-depth= human-readable inodes count-links no-dereference separate-dirs si summarize threshold= time time-style= exclude= exclude-from= one-file-system null help version",
		readsFiles("X", "exclude-from"))),
	"df": reading(flags("ahHiklPTv", "Btx", "all block-size= human-readable si inodes local output portability print-type sync no-sync total type= exclude-type= help version")),
	// Pure path arithmetic, or symlinks resolved: nothing is read.
	"basename": printing(flags("az", "s", "multiple suffix= zero help version")),
	"dirname":  printing(flags("z", "", "zero help version")),
	"realpath": printing(flags("emLPqsz", "", "canonicalize-existing canonicalize-missing logical physical quiet strip no-symlinks zero relative-to= relative-base= help version")),
	"readlink": printing(flags("femnqsvz", "", "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero help version")),
	"find":     reading(findAllowed),
	"git":      reading(gitAllowed),
	"go":       reading(goAllowed),
	// command -v NAME and -V look a name up; command with a command to run
	// is a wrapper and never gets here.
	"command": printing(flags("pvV", "", "")),
}

// flags returns a checker for a GNU-style command: short flags that may be
// bundled, short flags taking a value, and long flags (a trailing = means
// it takes a value, as --name=v or --name v). Its operands are the files
// it reads, with the options' changes.
func flags(short, shortValue, long string, opts ...tableOption) checker {
	t := flagTable{short: short, shortValue: shortValue, long: map[string]bool{}, maxOperands: -1}
	for _, f := range strings.Fields(long) {
		name, takes := strings.CutSuffix(f, "=")
		t.long[name] = takes
	}
	for _, o := range opts {
		o(&t)
	}
	return t.check
}

type tableOption func(*flagTable)

// readsFiles names the options whose value is a file the command reads.
func readsFiles(short, long string) tableOption {
	return func(t *flagTable) { t.fileShort, t.fileLong = short, strings.Fields(long) }
}

// patternFirst makes the first operand a pattern (grep's), unless one of
// these options gave the pattern.
func patternFirst(short, long string) tableOption {
	return func(t *flagTable) { t.patternFirst, t.patternShort, t.patternLong = true, short, strings.Fields(long) }
}

// listsFiles names the options that make the command take no pattern
// operand (rg --files lists files, its operands are all paths).
func listsFiles(short, long string) tableOption {
	return func(t *flagTable) { t.listShort, t.listLong = short, strings.Fields(long) }
}

// maxOperands makes a command take at most max operands, none of them a
// pattern.
func maxOperands(max int) tableOption {
	return func(t *flagTable) { t.maxOperands = max }
}

// numericFlags is flags for head, tail and grep, which also take -NUM.
func numericFlags(short, shortValue, long string, opts ...tableOption) checker {
	c := flags(short, shortValue, long, opts...)
	return func(name string, args []word) (string, []word, string) {
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
	fileShort         string
	fileLong          []string
	patternFirst      bool
	patternShort      string
	patternLong       []string
	listShort         string
	listLong          []string
}

func (t flagTable) check(name string, args []word) (string, []word, string) {
	var operands, files []word
	patternGiven := false
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
			return "", nil, ": an option with an expansion is only known when it runs"
		}
		if strings.HasPrefix(v, "--") {
			long, val, hasValue := strings.Cut(v[2:], "=")
			takes, ok := t.long[long]
			if !ok {
				return "", nil, fmt.Sprintf(": flag `--%s` is not permitted for %s", long, name)
			}
			patternGiven = patternGiven || slices.Contains(t.patternLong, long) || slices.Contains(t.listLong, long)
			var value *word
			if hasValue {
				value = &word{node: args[i].node, val: val, known: true}
			} else if takes && i+1 < len(args) {
				i++
				value = &args[i]
			}
			if value != nil && slices.Contains(t.fileLong, long) {
				files = append(files, *value)
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(t.patternShort, c) >= 0 || strings.IndexByte(t.listShort, c) >= 0 {
				patternGiven = true
			}
			if strings.IndexByte(t.shortValue, c) >= 0 {
				value := &word{node: args[i].node, val: v[j+1:], known: true}
				if j+1 == len(v) {
					value = nil
					if i+1 < len(args) {
						i++
						value = &args[i]
					}
				}
				if value != nil && strings.IndexByte(t.fileShort, c) >= 0 {
					files = append(files, *value)
				}
				break
			}
			if strings.IndexByte(t.short, c) < 0 {
				return "", nil, fmt.Sprintf(": flag `-%c` is not permitted for %s", c, name)
			}
		}
	}
	if t.maxOperands >= 0 {
		if len(operands) > t.maxOperands {
			// uniq's second operand is the file it writes.
			return "", nil, fmt.Sprintf(": %s with more than %d operand writes a file", name, t.maxOperands)
		}
		for _, w := range operands {
			if w.glob {
				return "", nil, fmt.Sprintf(": %s takes no pattern operands", name)
			}
		}
	}
	if t.patternFirst && !patternGiven && len(operands) > 0 {
		operands = operands[1:] // the pattern, not a file
	}
	return name, append(operands, files...), ""
}

// findPredicates are find's allowed options, tests and actions, with the
// number of values each takes. Left out: -exec, -execdir, -ok, -okdir
// (run commands), -delete, and -fprint, -fprint0, -fprintf, -fls (write
// files), -L and -follow (follow symlinks out of the tree), -files0-from
// (reads the start points from a file, which cannot be checked).
var findPredicates = map[string]int{
	"H": 0, "P": 0, "D": 1, "O0": 0, "O1": 0, "O2": 0, "O3": 0,
	"name": 1, "iname": 1, "path": 1, "ipath": 1, "wholename": 1, "iwholename": 1,
	"regex": 1, "iregex": 1, "regextype": 1, "type": 1, "xtype": 1, "size": 1,
	"mtime": 1, "mmin": 1, "atime": 1, "amin": 1, "ctime": 1, "cmin": 1, "used": 1,
	"newer": 1, "anewer": 1, "cnewer": 1, "maxdepth": 1, "mindepth": 1,
	"perm": 1, "user": 1, "group": 1, "uid": 1, "gid": 1, "links": 1, "inum": 1,
	"samefile": 1, "lname": 1, "ilname": 1, "fstype": 1, "context": 1, "printf": 1,
	"depth": 0, "prune": 0, "print": 0, "print0": 0, "ls": 0, "empty": 0,
	"executable": 0, "readable": 0, "writable": 0, "nouser": 0, "nogroup": 0,
	"false": 0, "true": 0, "not": 0, "a": 0, "o": 0, "and": 0, "or": 0,
	"mount": 0, "xdev": 0, "noleaf": 0, "daystart": 0, "quit": 0,
	"ignore_readdir_race": 0, "noignore_readdir_race": 0, "help": 0, "version": 0,
}

// findFileValues are the tests whose value is a file find reads.
var findFileValues = map[string]bool{"newer": true, "anewer": true, "cnewer": true, "samefile": true}

// findAllowed checks find's expression; the start points before it and
// the files its tests compare with are the paths it reads.
func findAllowed(name string, args []word) (string, []word, string) {
	var paths []word
	starts := true
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if len(v) < 2 || v[0] != '-' {
			if starts && v != "!" && v != "(" && v != ")" && v != "," {
				paths = append(paths, args[i])
			}
			continue
		}
		if !args[i].known {
			return "", nil, ": an option with an expansion is only known when it runs"
		}
		pred := v[1:]
		n, ok := findPredicates[pred]
		if !ok && newerXY(pred) {
			n, ok = 1, true
		}
		if !ok {
			return "", nil, fmt.Sprintf(": `%s` is not permitted for find", v)
		}
		if pred != "H" && pred != "P" && pred != "D" && !strings.HasPrefix(pred, "O") {
			starts = false
		}
		if n == 1 && i+1 < len(args) && (findFileValues[pred] || newerXY(pred) && pred[6] != 't') {
			paths = append(paths, args[i+1])
		}
		i += n
	}
	return name, paths, ""
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
// (--output) or run configured programs (--ext-diff), in any abbreviation.
// The repository's own configuration is checked apart (gitconfig.go).
func gitAllowed(name string, args []word) (string, []word, string) {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].val, "-"); i++ {
		switch v := args[i].val; v {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs":
		case "-C":
			i++
		default:
			return "", nil, fmt.Sprintf(": git option `%s` is not permitted", v)
		}
	}
	if i >= len(args) || !args[i].plain() || !gitReadOnly[args[i].val] {
		return "", nil, " is not on the allowlist"
	}
	sub := args[i].val
	for _, w := range args[i+1:] {
		v := w.val
		if v == "--" {
			break
		}
		if !w.known && strings.HasPrefix(v, "-") {
			return "", nil, ": an option with an expansion is only known when it runs"
		}
		if longPrefix(v, "output", 2) || longPrefix(v, "ext-diff", 3) {
			o, _, _ := strings.Cut(v, "=")
			return "", nil, fmt.Sprintf(": flag `%s` is not permitted for git %s", o, sub)
		}
	}
	return "git " + sub, gitPaths(args[i+1:]), ""
}

// gitFileOptions are the options of the allowed git commands whose value
// is a file git reads (the others' values are revisions, patterns and
// formats: `--grep=/api/` is no path).
var gitFileOptions = map[string]bool{
	"contents": true, "ignore-revs-file": true, "exclude-from": true,
	"pathspec-from-file": true, "exclude-per-directory": true,
}

// gitPaths are git's operands (pathspecs and revisions, which read as
// paths inside the repository) and the files its options read.
func gitPaths(args []word) []word {
	var paths []word
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		switch {
		case v == "--":
			continue
		case !strings.HasPrefix(v, "-") || v == "-":
			paths = append(paths, w)
		case strings.HasPrefix(v, "--"):
			name, val, ok := strings.Cut(v[2:], "=")
			if !gitFileOptions[name] {
				continue
			}
			if ok {
				paths = append(paths, word{node: w.node, val: val, known: w.known})
			} else if i+1 < len(args) {
				i++
				paths = append(paths, args[i])
			}
		case strings.HasPrefix(v, "-O") && len(v) > 2:
			paths = append(paths, word{node: w.node, val: v[2:], known: w.known}) // the diff order file
		}
	}
	return paths
}

// gitDirs are the directories git runs in after its -C options, from
// each directory the shell may be in.
func (a *analyzer) gitDirs(args []word) []string {
	dirs := a.dirs
	for i := 0; i < len(args) && strings.HasPrefix(args[i].val, "-"); i++ {
		if args[i].val != "-C" || i+1 == len(args) {
			continue
		}
		i++
		next := make([]string, 0, len(dirs))
		for _, d := range dirs {
			p := args[i].val
			if !path.IsAbs(p) {
				p = path.Join(d, p)
			}
			next = append(next, path.Clean(p))
		}
		dirs = next
	}
	return dirs
}

// operandPaths are the words of a command whose arguments are not
// modelled option by option: every operand, and every --name=VALUE value,
// may be a file it reads.
func operandPaths(args []word) []word {
	var paths []word
	for _, w := range args {
		if !strings.HasPrefix(w.val, "-") || w.val == "-" {
			paths = append(paths, w)
			continue
		}
		if _, val, ok := strings.Cut(w.val, "="); ok && val != "" {
			paths = append(paths, word{node: w.node, val: val, known: w.known})
		}
	}
	return paths
}

// goReadOnly are the go subcommands that only report, with their allowed
// flags (true: takes a value). go env -w/-u write the configuration;
// go list -export, -compiled and -toolexec build or run tools; go list -m
// (and -u, -versions, -retracted, which need it) asks the module proxy
// over the network.
var goReadOnly = map[string]map[string]bool{
	"version": {"m": false, "v": false, "json": false},
	"env":     {"json": false, "changed": false},
	"list": {"json": false, "f": true, "e": false, "deps": false, "test": false,
		"find": false, "tags": true, "reuse": true},
}

func goAllowed(name string, args []word) (string, []word, string) {
	if len(args) == 0 || !args[0].plain() {
		return "", nil, " is not on the allowlist"
	}
	sub := args[0].val
	table, ok := goReadOnly[sub]
	if !ok {
		return "", nil, " is not on the allowlist"
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
			return "", nil, ": an option with an expansion is only known when it runs"
		}
		flag, _, hasValue := strings.Cut(strings.TrimPrefix(v[1:], "-"), "=")
		takes, ok := table[flag]
		if !ok {
			return "", nil, fmt.Sprintf(": flag `-%s` is not permitted for go %s", flag, sub)
		}
		if takes && !hasValue {
			i++
		}
	}
	return "go " + sub, operandPaths(args[1:]), ""
}

// systemDirs are read by no allowed command (gptme's list).
var systemDirs = []string{"/etc", "/root", "/proc", "/sys", "/boot"}

// tildeProblem says where a word bash tilde-expands may lead: every form
// is taken as the worst it can be.
func tildeProblem(v string) string {
	t := v
	if i := strings.IndexByte(v, '~'); i > 0 {
		t = v[i:] // an assignment's value: x=~/y, x=a:~/y
	}
	name, _, _ := strings.Cut(t[1:], "/")
	switch {
	case name == "":
		return fmt.Sprintf("`%s` is in the home directory", v)
	case name == "+" || name == "-":
		return fmt.Sprintf("`%s` is in the shell's current or previous directory (~%s), only known when it runs", v, name)
	}
	return fmt.Sprintf("`%s` is in another user's home directory (or the home directory)", v)
}

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
		return tildeProblem(v)
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
	}
	if w.glob && w.pattern != "" {
		for _, e := range patternElems(w.pattern) {
			if hasGlobMeta(e) && mayMatchDots(e) && bashMatch(e, "..") {
				return fmt.Sprintf("`%s` can match `..`", v)
			}
		}
	}
	return ""
}
