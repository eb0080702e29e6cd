package browser

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agentls/agentls/internal/text"
)

// A page is what a fetch read.
type page struct {
	url     *url.URL // after redirects
	kind    string   // "html" or "text"
	body    []byte
	clipped bool // the body was longer than MaxBodyBytes
}

// render is what the model reads of the page: its title and URL, its
// readable text, and its links.
func (p *page) render() string {
	var head, text string
	var links []string
	if p.kind == "text" {
		text = strings.TrimSpace(string(p.body))
	} else {
		head, text, links = extract(p.body, p.url)
	}
	var b strings.Builder
	if head != "" {
		fmt.Fprintf(&b, "# %s\n", head)
	}
	fmt.Fprintf(&b, "URL: %s\n", p.url)
	if p.clipped {
		fmt.Fprintf(&b, "(only the first %d MB of the page was read)\n", MaxBodyBytes>>20)
	}
	b.WriteString("\n")
	if text == "" {
		b.WriteString("(the page has no readable text: it may need JavaScript, which the browser tool does not run)\n")
	} else {
		b.WriteString(clipText(text, MaxTextBytes))
		b.WriteString("\n")
	}
	if len(links) > 0 {
		b.WriteString("\nLinks:\n")
		for i, l := range links {
			fmt.Fprintf(&b, "[%d] %s\n", i+1, l)
		}
	}
	return b.String()
}

// clipText cuts a page's text to at most n bytes, at a line break in the
// second half or else at a character boundary, saying how much was left
// out.
func clipText(page string, n int) string {
	if len(page) <= n {
		return page
	}
	shown := text.Clip(page, n)
	if cut := strings.LastIndexByte(shown, '\n'); cut >= n/2 {
		shown = shown[:cut]
	}
	return shown + fmt.Sprintf("\n\n(the text goes on for %d KB more: not shown)", (len(page)-len(shown))>>10)
}

// extract returns an HTML page's title, its main text and the links in
// that text. Readability (go-readability, Mozilla's algorithm) picks the
// main content, dropping navigation, sidebars and ads; a page where it
// finds none is read whole, with the page's furniture (scripts, styles,
// nav, header, footer, forms) dropped.
func extract(body []byte, base *url.URL) (title, text string, links []string) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "", "", nil // html.Parse reads any bytes; only a reader's error stops it
	}
	w := &textWriter{base: base, linkIndex: map[string]int{}}
	if art, err := readability.FromDocument(doc, base); err == nil && art.Node != nil {
		title = strings.TrimSpace(art.Title())
		w.node(art.Node)
	}
	if strings.TrimSpace(w.b.String()) == "" {
		w = &textWriter{base: base, linkIndex: map[string]int{}}
		if body := find(doc, atom.Body); body != nil {
			w.node(body)
		} else {
			w.node(doc)
		}
		if title == "" {
			if t := find(doc, atom.Title); t != nil {
				title = strings.TrimSpace(collapse(innerText(t)))
			}
		}
	}
	return title, tidy(w.b.String()), w.links
}

// find returns the first element of type a under n.
func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

// textWriter renders HTML as Markdown-like text: headings with #, list
// items with -, preformatted text fenced, links numbered [n] and listed.
type textWriter struct {
	b         strings.Builder
	base      *url.URL
	links     []string
	linkIndex map[string]int
	list      []list // enclosing ul/ol, innermost last
	inPre     bool
}

// A list is an open ul or ol, and how many items it has shown.
type list struct {
	ordered bool
	items   int
}

// dropped are elements whose content is not the page's text.
func dropped(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Object, atom.Embed,
		atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Button, atom.Select, atom.Input, atom.Textarea,
		atom.Head, atom.Canvas, atom.Dialog:
		return true
	}
	return false
}

func block(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Blockquote, atom.Table, atom.Tr,
		atom.Dl, atom.Dt, atom.Dd, atom.Figure, atom.Figcaption, atom.Hr, atom.Details, atom.Summary, atom.Address:
		return true
	}
	return false
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if w.inPre {
			w.b.WriteString(n.Data)
		} else {
			w.b.WriteString(collapse(n.Data))
		}
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	a := n.DataAtom
	switch {
	case dropped(a):
		return
	case a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6:
		w.para()
		w.b.WriteString(strings.Repeat("#", int(a.String()[1]-'0')) + " ")
		w.children(n)
		w.para()
	case a == atom.Pre:
		w.para()
		code := innerText(n)
		fence := "```"
		for strings.Contains(code, fence) {
			fence += "`"
		}
		w.b.WriteString(fence + "\n" + strings.TrimRight(code, "\n") + "\n" + fence)
		w.para()
	case a == atom.Code || a == atom.Kbd || a == atom.Samp:
		w.b.WriteString("`" + collapse(innerText(n)) + "`")
	case a == atom.Br:
		w.b.WriteString("\n")
	case a == atom.Ul || a == atom.Ol:
		// A list is a paragraph of its own; a list inside an item goes on
		// under it, indented.
		end := w.para
		if len(w.list) > 0 {
			end = w.line
		}
		end()
		w.list = append(w.list, list{ordered: a == atom.Ol})
		w.children(n)
		w.list = w.list[:len(w.list)-1]
		end()
	case a == atom.Li:
		w.line()
		depth := max(len(w.list)-1, 0)
		mark := "- "
		if len(w.list) > 0 {
			l := &w.list[len(w.list)-1]
			l.items++
			if l.ordered {
				mark = fmt.Sprintf("%d. ", l.items)
			}
		}
		w.b.WriteString(strings.Repeat("  ", depth) + mark)
		w.children(n)
		w.line()
	case a == atom.Td || a == atom.Th:
		w.children(n)
		w.b.WriteString(" | ")
	case a == atom.A:
		w.children(n)
		if i := w.link(attr(n, "href")); i > 0 {
			fmt.Fprintf(&w.b, " [%d]", i)
		}
	case a == atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.b.WriteString("[image: " + collapse(alt) + "]")
		}
	case block(a):
		w.para()
		w.children(n)
		w.para()
	default:
		w.children(n)
	}
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// para ends the paragraph: a blank line (tidy squeezes repeats).
func (w *textWriter) para() { w.b.WriteString("\n\n") }

// line ends the line, unless it just ended (list items follow one
// another without blank lines).
func (w *textWriter) line() {
	if s := w.b.String(); s != "" && !strings.HasSuffix(strings.TrimRight(s, " "), "\n") {
		w.b.WriteString("\n")
	}
}

// link numbers a link's absolute URL (the same URL keeps its number); 0
// for links that lead nowhere to read (fragments, javascript:, mailto:).
func (w *textWriter) link(href string) int {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return 0
	}
	u, err := url.Parse(href)
	if err != nil {
		return 0
	}
	if w.base != nil {
		u = w.base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return 0 // https:0 is a scheme and an opaque part: nowhere to go
	}
	u.Fragment = ""
	s := u.String()
	if i, ok := w.linkIndex[s]; ok {
		return i
	}
	if len(w.links) >= MaxLinks {
		return 0
	}
	w.links = append(w.links, s)
	w.linkIndex[s] = len(w.links)
	return len(w.links)
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// innerText is the text under n, as it is (for pre and code).
func innerText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteString("\n")
		case n.Type == html.ElementNode && dropped(n.DataAtom):
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// collapse turns runs of white space into one space, as a browser shows
// them.
func collapse(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		if s == "" {
			return ""
		}
		return " "
	}
	out := strings.Join(f, " ")
	if isSpace(s[0]) {
		out = " " + out
	}
	if isSpace(s[len(s)-1]) {
		out += " "
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// listItem reports whether a line starts with a list item's mark.
func listItem(line string) bool {
	if strings.HasPrefix(line, "- ") {
		return true
	}
	digits := len(line) - len(strings.TrimLeft(line, "0123456789"))
	return digits > 0 && strings.HasPrefix(line[digits:], ". ")
}

// tidy trims each line's ends (outside fences) and squeezes blank lines.
func tidy(s string) string {
	var out []string
	fence := ""
	blank := true
	for _, line := range strings.Split(s, "\n") {
		if fence != "" {
			out = append(out, line)
			if strings.TrimSpace(line) == fence {
				fence = ""
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if indent := strings.TrimLeft(line, " "); trimmed != "" && indent != line && listItem(indent) {
			// A nested list item keeps its indentation.
			trimmed = line[:len(line)-len(indent)] + strings.TrimSpace(indent)
		}
		line = trimmed
		if strings.HasPrefix(line, "```") {
			fence = line[:len(line)-len(strings.TrimLeft(line, "`"))]
		}
		if line == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
