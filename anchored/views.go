package anchored

import (
	"slices"
	"sync"
)

// Views keeps the anchor tables of the last views of a few documents (a
// Renderer each), so that a batch applied to the very text a view showed
// is resolved through the table that view built, without finding, hashing
// and widening the lines again (Renderer.Apply): what a server keeps
// between view_anchored and the patch_anchored that follows it.
//
// A kept table is used only for the exact text it was built from:
// ApplyKept compares the text with the one viewed in full (at once when
// it is the same string), so a changed text is never resolved against
// stale anchors. What ApplyKept returns is what Apply returns on that
// text, byte for byte, rejections included.
//
// The zero value is ready to use, and a nil *Views keeps nothing. It is
// safe for concurrent use: calls on different documents run in parallel,
// calls on one document one at a time.
type Views struct {
	mu   sync.Mutex
	kept []*keptView // the most recently viewed last
	size int         // the bytes of the texts kept

	maxBytes int // the bound on size; 0 is keptViewBytes (a test sets less)
}

// The bounds of what Views keeps: the last views of keptViews documents,
// and of older ones only while the texts kept add up to keptViewBytes or
// less (the newest view is kept whatever its size). A kept view holds its
// text, and its table of several words a line.
const (
	keptViews     = 8
	keptViewBytes = 64 << 20
)

// A keptView is the last view of one document.
type keptView struct {
	key  string
	size int // the text's bytes, as counted in Views.size

	mu sync.Mutex // held while r renders or applies: both change its table
	r  Renderer
}

// Render renders lines from..to of text, the content of the document
// named key, as RenderText does, and keeps the anchor table it built for
// ApplyKept, in place of key's earlier one. Only a successful view is
// kept.
func (v *Views) Render(key, text string, from, to int, opts Options) (string, error) {
	if v == nil {
		return RenderText(text, from, to, opts)
	}
	kv := v.take(key)
	kv.mu.Lock()
	kv.r.Options = opts
	view, err := kv.r.renderText(text, from, to)
	if err != nil {
		kv.r.kept, kv.r.rendered = false, "" // the model was shown no anchors
	}
	kv.mu.Unlock()
	if err != nil {
		return "", err
	}
	v.keep(kv, len(text))
	return view, nil
}

// ApplyKept applies ops to text, the content of the document named key,
// through the anchor table of key's last view, when that view rendered
// this very text (compared byte for byte) with opts's Width: the result
// and error are Apply's on that text. When no kept view rendered it, ok
// is false and nothing was done: the caller applies the ops afresh (and
// only then needs the line hashes it may keep). opts's Hashes are not
// read.
func (v *Views) ApplyKept(key, text string, ops []Op, opts Options) (res Result, ok bool, err error) {
	if v == nil {
		return Result{}, false, nil
	}
	kv := v.find(key)
	if kv == nil {
		return Result{}, false, nil
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	r := &kv.r
	// The check Renderer.Apply makes too, made here so that a text it
	// would anchor afresh is left to the caller, with the caller's
	// options: r.Options may hold hashes of an older text.
	if !r.kept || r.renderedWidth != opts.Width || text != r.rendered {
		return Result{}, false, nil
	}
	res, err = r.Apply(text, ops)
	return res, true, err
}

// take returns key's kept view, or a new one, which Render fills; it is
// made the most recent only once rendered (keep), so a view that fails
// replaces nothing it should not.
func (v *Views) take(key string) *keptView {
	if kv := v.find(key); kv != nil {
		return kv
	}
	return &keptView{key: key}
}

// keep makes kv, which has just rendered a text of size bytes, the most
// recent view, and drops the oldest views beyond the bounds.
func (v *Views) keep(kv *keptView, size int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if i := slices.Index(v.kept, kv); i >= 0 {
		v.kept = slices.Delete(v.kept, i, i+1)
		v.size -= kv.size
	} else if i := slices.IndexFunc(v.kept, func(o *keptView) bool { return o.key == kv.key }); i >= 0 {
		// Another Render of key made its own view meanwhile: this one,
		// newer, replaces it.
		v.size -= v.kept[i].size
		v.kept = slices.Delete(v.kept, i, i+1)
	}
	kv.size = size
	v.kept = append(v.kept, kv)
	v.size += size
	maxBytes := v.maxBytes
	if maxBytes == 0 {
		maxBytes = keptViewBytes
	}
	for len(v.kept) > 1 && (len(v.kept) > keptViews || v.size > maxBytes) {
		v.size -= v.kept[0].size
		v.kept[0] = nil
		v.kept = v.kept[1:]
	}
}

// find returns key's kept view, or nil.
func (v *Views) find(key string) *keptView {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, kv := range v.kept {
		if kv.key == key {
			return kv
		}
	}
	return nil
}

// renderText is Render whose view is a string of its own, written in
// memory of its exact size (as RenderText writes it): the Renderer keeps
// the anchor table for Apply, but no copy of the view.
func (r *Renderer) renderText(text string, from, to int) (string, error) {
	return r.load(text).viewString(from, to)
}
