// Package browser is the browser tool: read a web page as text, or search
// through the search engine the user configured.
//
// Trust (DESIGN §8a): a fetch *sends*: its URL (and whatever the model put
// in it) leaves the machine, and the page reaches the model's context from
// outside the workspace. So every fetch is put to the user through the
// turn's approval.Confirmer, with the full URL, as a command is, unless
// the URL's host matches the browserAllowlist setting (a risky key: only
// the user's own settings, or a workspace file they trusted, set it). A
// redirect is a new fetch: it is checked again (scheme, and host against
// the allowlist and what the user approved), so an allowed host cannot
// forward the request elsewhere unasked. Only http and https are read;
// what is read is bounded (redirects, bytes, time). Nothing is run: the
// page's scripts are never executed, so pages that need JavaScript show
// little (out of scope for now).
//
// # Reading a page
//
// A URL must be http or https with a host. The fetch has one timeout for
// everything (the browserTimeout setting), follows at most MaxRedirects,
// and reads at most MaxBodyBytes; text is converted to UTF-8 from its
// declared or sniffed charset. The main content is picked by
// go-readability (Mozilla Readability's scoring keeps navigation and
// sidebars out); a page where it finds none is read whole without
// scripts, styles, navigation and forms. Our renderer writes what the
// model reads: # headings, list items, fenced code, [n] after each link
// and the links listed at the end, at most MaxTextBytes. search fills the
// user's searchUrl template and reads that page, asking first; with no
// searchUrl it is off and says how to turn it on.
package browser
