package tools

import "github.com/agentls/agentls/tools/approval"

// A failed call may have done part of its work: a shell block whose
// first commands ran, an editor that applied the first files of an edit
// and refused the rest. The model is told "nothing was changed" only
// where the tool says so; a tool says it by returning its error wrapped
// in a Failure (Unchanged, PartlyChanged). What it printed before failing
// is the output it returns with the error, bounded as any output is.

// A Change is what a failed call left behind.
type Change int

const (
	// ChangeUnknown: the tool does not say; the model is not told that
	// nothing changed.
	ChangeUnknown Change = iota
	// ChangeNone: the call was refused before it did anything (an edit
	// refused atomically, an approval refused).
	ChangeNone
	// ChangePartial: part of the call ran or applied before it failed.
	ChangePartial
)

func (c Change) String() string {
	switch c {
	case ChangeNone:
		return "nothing changed"
	case ChangePartial:
		return "partly changed"
	}
	return "unknown"
}

// A Failure is a tool's error that says what the call left behind.
type Failure struct {
	Err     error
	Changed Change
}

func (f *Failure) Error() string { return f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// Unchanged marks err as a failure that changed nothing; nil stays nil.
func Unchanged(err error) error {
	if err == nil {
		return nil
	}
	return &Failure{Err: err, Changed: ChangeNone}
}

// PartlyChanged marks err as a failure after part of the call was done;
// nil stays nil.
func PartlyChanged(err error) error {
	if err == nil {
		return nil
	}
	return &Failure{Err: err, Changed: ChangePartial}
}

// ChangedOf is what a call's error says it left behind: the outermost
// Failure's word (the chain is walked by hand so that a wrapper's word
// wins over what it wraps), else ChangeNone for an approval's refusal (what was
// refused did not run), else ChangeUnknown.
func ChangedOf(err error) Change {
	for e := err; e != nil; {
		switch x := e.(type) {
		case *Failure:
			return x.Changed
		case *approval.Refusal:
			return ChangeNone
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		case interface{ Unwrap() []error }:
			// A joined error: its first part that says wins.
			for _, p := range u.Unwrap() {
				if c := ChangedOf(p); c != ChangeUnknown {
					return c
				}
			}
			return ChangeUnknown
		default:
			e = nil
		}
	}
	return ChangeUnknown
}
