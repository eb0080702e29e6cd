package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
)

// peerReply returns the reply of about target bytes that
// ../shared/research/peers-gen.py writes as reply-<target>.md, byte for
// byte: the input `editbench peers` times agentls and gptme on. Its mix
// changes with the size — a block is capped at a 32nd of what is left to
// write, so a 10 KB reply has short blocks and a larger share of long prose
// lines, a 10 MB one blocks of up to 200 lines of code — which is what makes
// bytes per second of a parser whose cost is per line differ across sizes.
// realisticReply keeps one mix at every size.
func peerReply(target int) string {
	g := peerGen{r: splitMix64{state: peerBaseSeed + 1<<40 + uint64(target)}}
	var b strings.Builder
	for {
		for range g.r.between(1, 3) {
			b.WriteString(g.paragraph())
		}
		if b.Len() >= target {
			break
		}
		b.WriteString(g.block(g.pickBlock(), target-b.Len()) + "\n")
		if b.Len() >= target {
			break
		}
	}
	return b.String()
}

const peerBaseSeed = 0x6167656E746C73 // "agentls"

// splitMix64 is the generator's PRNG; intn's modulo bias is part of its
// spec.
type splitMix64 struct{ state uint64 }

func (r *splitMix64) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func (r *splitMix64) intn(n int) int             { return int(r.next() % uint64(n)) }
func (r *splitMix64) between(lo, hi int) int     { return lo + r.intn(hi-lo+1) }
func (r *splitMix64) pick(words []string) string { return words[r.intn(len(words))] }

// The generator's word lists, verbatim.
var (
	peerWords = strings.Fields("the a this that we it file function test change update value error result " +
		"config path module handler request response server client parser block line " +
		"code output input buffer stream token chunk patch edit tool call reply model " +
		"should will can now then first next also because so but and or with without " +
		"into from for in on of to by when after before returns checks adds removes " +
		"keeps fixes moves reads writes runs builds loads uses handles expects")
	peerIdents = strings.Fields("ctx cfg buf req resp err n i j k idx offset size count total name path data " +
		"items node parent child key val line lines text opts state conn client srv " +
		"handler result tmp out in reader writer")
	peerFuncs = strings.Fields("parse load save apply render handle process build read write open close " +
		"update check validate merge split join format encode decode resolve")
	peerTypes = strings.Fields("Config Request Response Parser Buffer Stream Token Chunk Patch Edit Tool " +
		"Server Client Handler Node Block")
	peerGoTypes   = strings.Fields("int string error bool []byte []string *Config map[string]int")
	peerDirs      = strings.Fields("internal/parse internal/patch internal/tools cmd/agentls pkg/lsp src/app src/util tests")
	peerShellCmds = []string{
		"ls -la {d}",
		"go test ./{d}/...",
		"go build ./...",
		"grep -rn \"{f}\" {d}",
		"cat {p}",
		"git status",
		"git diff --stat",
		"python3 -m pytest {d} -q",
		"wc -l {p}",
		"head -n {n} {p}",
		"mkdir -p {d}",
		"rg -n \"{t}\" {d}",
	}
)

type peerGen struct {
	r    splitMix64
	uniq int // makes every function name unique within one reply
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (g *peerGen) sentence() string {
	n := g.r.between(6, 16)
	ws := make([]string, 0, n)
	for range n {
		if g.r.intn(12) == 0 {
			ws = append(ws, "`"+g.r.pick(peerIdents)+"`")
		} else {
			ws = append(ws, g.r.pick(peerWords))
		}
	}
	return capitalize(strings.Join(ws, " ")) + "."
}

func (g *peerGen) paragraph() string {
	if g.r.intn(4) == 0 {
		var b strings.Builder
		for range g.r.between(2, 5) {
			b.WriteString("- " + g.sentence() + "\n")
		}
		return b.String() + "\n"
	}
	ss := make([]string, g.r.between(2, 5))
	for i := range ss {
		ss[i] = g.sentence()
	}
	return strings.Join(ss, " ") + "\n\n"
}

func (g *peerGen) path(ext string) string {
	return g.r.pick(peerDirs) + "/" + g.r.pick(peerFuncs) + "_" + g.r.pick(peerIdents) + ext
}

func (g *peerGen) words(lo, hi int) string {
	n := g.r.between(lo, hi)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.r.pick(peerWords)
	}
	return strings.Join(ws, " ")
}

func (g *peerGen) goLine() string {
	r := &g.r
	k := r.intn(10)
	a, b := r.pick(peerIdents), r.pick(peerIdents)
	switch k {
	case 0:
		return "\tif err != nil {\n\t\treturn err\n\t}"
	case 1:
		return "\t// " + g.words(3, 8)
	case 2:
		return "\tfor " + a + " := 0; " + a + " < " + strconv.Itoa(r.between(1, 999)) + "; " + a + "++ {\n\t\t" + b + " += " + a + "\n\t}"
	case 3:
		f := r.pick(peerFuncs)
		return "\t" + a + " := " + f + r.pick(peerTypes) + "(" + b + ", " + strconv.Itoa(r.between(0, 99)) + ")"
	case 4:
		return "\t" + a + ", err := " + b + "." + capitalize(r.pick(peerFuncs)) + "(ctx)"
	case 5:
		return "\tfmt.Printf(\"%s: %d\\n\", " + a + ", " + b + ")"
	case 6:
		return "\t" + a + " = append(" + a + ", " + b + ")"
	case 7:
		return "\tif " + a + " == nil {\n\t\treturn nil, fmt.Errorf(\"missing " + a + "\")\n\t}"
	case 8:
		t := r.pick(peerTypes)
		return "\ttype " + t + "Opts struct {\n\t\t" + capitalize(a) + " string `json:\"" + a + "\"`\n\t}"
	}
	return "\treturn " + a
}

func (g *peerGen) pyLine() string {
	r := &g.r
	k := r.intn(8)
	a, b := r.pick(peerIdents), r.pick(peerIdents)
	switch k {
	case 0:
		return "    if " + a + " is None:\n        raise ValueError(\"missing " + a + "\")"
	case 1:
		return "    # " + g.words(3, 8)
	case 2:
		return "    for " + a + " in range(" + strconv.Itoa(r.between(1, 999)) + "):\n        " + b + " += " + a
	case 3:
		f := r.pick(peerFuncs)
		return "    " + a + " = " + f + "_" + b + "(" + b + ", " + strconv.Itoa(r.between(0, 99)) + ")"
	case 4:
		return "    " + a + " = self." + r.pick(peerFuncs) + "(" + b + ")"
	case 5:
		return "    print(f\"{" + a + "}: {" + b + "}\")"
	case 6:
		return "    " + a + ".append(" + b + ")"
	}
	return "    return " + a
}

// codeLines writes whole functions until there are n lines, then cuts to n.
func (g *peerGen) codeLines(lang string, n int) []string {
	r := &g.r
	var out []string
	for len(out) < n {
		g.uniq++
		name := r.pick(peerFuncs) + r.pick(peerTypes) + strconv.Itoa(g.uniq)
		if lang == "go" {
			arg := r.pick(peerIdents)
			out = append(out, "func "+name+"("+arg+" "+r.pick(peerGoTypes)+") error {")
			for range r.between(3, 12) {
				out = append(out, strings.Split(g.goLine(), "\n")...)
			}
			out = append(out, "\treturn nil", "}")
		} else {
			a := r.pick(peerIdents)
			out = append(out, "def "+name+"("+a+", "+r.pick(peerIdents)+"):")
			for range r.between(3, 12) {
				out = append(out, strings.Split(g.pyLine(), "\n")...)
			}
		}
		out = append(out, "")
	}
	return out[:n]
}

func capLines(nominal, remaining, minimum int) int {
	return max(minimum, min(nominal, remaining/32))
}

func (g *peerGen) shellCmd(t string) string {
	return strings.NewReplacer("{d}", "src", "{f}", "main", "{p}", "main.go", "{n}", "10", "{t}", "Config").Replace(t)
}

func (g *peerGen) block(kind string, remaining int) string {
	r := &g.r
	switch kind {
	case "shell":
		cmds := make([]string, r.between(1, 5))
		for i := range cmds {
			// The replacements are drawn in this order whether or not the
			// template uses them.
			t := r.pick(peerShellCmds)
			d, f, p := r.pick(peerDirs), r.pick(peerFuncs), g.path(".go")
			n, ty := strconv.Itoa(r.between(5, 80)), r.pick(peerTypes)
			cmds[i] = strings.NewReplacer("{d}", d, "{f}", f, "{p}", p, "{n}", n, "{t}", ty).Replace(t)
		}
		return "```shell\n" + strings.Join(cmds, "\n") + "\n```\n"
	case "patch":
		lang := "py"
		if r.intn(2) == 0 {
			lang = "go"
		}
		s := "```patch " + g.path("."+lang) + "\n"
		for range r.between(1, 3) {
			a := g.codeLines(lang, capLines(r.between(2, 12), remaining, 2))
			b := g.codeLines(lang, capLines(r.between(2, 12), remaining, 2))
			s += "<<<<<<< ORIGINAL\n" + strings.Join(a, "\n") + "\n=======\n" + strings.Join(b, "\n") + "\n>>>>>>> UPDATED\n"
		}
		return s + "```\n"
	case "save":
		lang := "py"
		if r.intn(2) == 0 {
			lang = "go"
		}
		path := g.path("." + lang)
		n := capLines(r.between(20, 200), remaining, 20)
		return "```save " + path + "\n" + strings.Join(g.codeLines(lang, n), "\n") + "\n```\n"
	case "markdown_nested":
		outer := "```"
		if r.intn(2) == 0 {
			outer = "````"
		}
		innerLang := r.pick([]string{"go", "python", "shell"})
		var inner []string
		if innerLang == "shell" {
			inner = make([]string, r.between(1, 4))
			for i := range inner {
				inner[i] = g.shellCmd(r.pick(peerShellCmds))
			}
		} else {
			lang := "py"
			if innerLang == "go" {
				lang = "go"
			}
			inner = g.codeLines(lang, capLines(r.between(3, 10), remaining, 3))
		}
		title := capitalize(g.words(2, 5))
		first := g.paragraph()
		code := "```" + innerLang + "\n" + strings.Join(inner, "\n") + "\n```\n\n"
		return outer + "markdown\n# " + title + "\n\n" + first + code + g.paragraph() + outer + "\n"
	}
	// code_example: not a tool block
	lang := "python"
	if r.intn(2) == 0 {
		lang = "go"
	}
	n := capLines(r.between(5, 40), remaining, 5)
	gen := "py"
	if lang == "go" {
		gen = "go"
	}
	return "```" + lang + "\n" + strings.Join(g.codeLines(gen, n), "\n") + "\n```\n"
}

func (g *peerGen) pickBlock() string {
	x := g.r.intn(100)
	for _, m := range []struct {
		kind   string
		weight int
	}{{"shell", 30}, {"patch", 20}, {"save", 25}, {"markdown_nested", 10}, {"code_example", 15}} {
		if x < m.weight {
			return m.kind
		}
		x -= m.weight
	}
	panic("the block weights add up to 100")
}

// TestPeerReplyMatchesGenerator checks the port against the SHA-256 that
// peers-gen.py's manifest lists, so the benchmarks time the bytes the
// side-by-side table does.
func TestPeerReplyMatchesGenerator(t *testing.T) {
	for target, want := range map[int]string{
		1_000:   "1e8a67109be2e67b3b24ad034c4505ee4fe3e5b3f01c931b78525d687d426b85",
		10_000:  "69504624d2db14ca7db89bfffbb99c50fa85fcdfe3cebeb5f401fcb1739926c7",
		100_000: "13cfaa9bb528c9a4fe07107c2b818c36862d9e21be13321a5ba336ceaef5dbf3",
	} {
		sum := sha256.Sum256([]byte(peerReply(target)))
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("peerReply(%d) has SHA-256 %s, peers-gen.py's reply-%d.md %s", target, got, target, want)
		}
	}
}
