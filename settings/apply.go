package settings

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// A Source is where raw settings come from, and so how far they are
// trusted.
type Source struct {
	// Name is shown with each problem ("initializationOptions",
	// ".agentls/settings.json").
	Name string
	// Trusted sources may set security-relevant keys: the editor, the
	// user's own file, a workspace file the user trusted as it is.
	Trusted bool
	// Untrusted says, for an untrusted source, why and what to do: it
	// ends the message of each key left out.
	Untrusted string
}

// A Problem is something a source said that was not taken.
type Problem struct {
	Source string
	// Key is the setting ("" for the source as a whole).
	Key     string
	Message string
	// Ignored is set for a security-relevant key left out because its
	// source is not trusted (the value itself was fine).
	Ignored bool
}

func (p Problem) String() string {
	if p.Key == "" {
		return p.Source + ": " + p.Message
	}
	return fmt.Sprintf("%s: agentls.%s: %s", p.Source, p.Key, p.Message)
}

// Apply reads raw settings from src onto s, key by key, and returns the
// result and what was not taken: values that are not valid (the previous
// value stays), unknown keys, and security-relevant keys from an
// untrusted source. {"agentls": {...}} is read as the section itself.
//
// checks are the checks of the keys whose meaning another package owns
// (Checks); the zero Checks accepts any well-typed value for them.
func (s Settings) Apply(raw json.RawMessage, src Source, checks Checks) (Settings, []Problem) {
	fields, problem := object(raw)
	if problem != "" {
		return s, []Problem{{Source: src.Name, Message: problem}}
	}
	next := s
	var problems []Problem
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	// In documented order, then the unknown ones sorted: problems read
	// the same way every time.
	documented := Keys()
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(documented, a), slices.Index(documented, b)
		if ia < 0 {
			ia = len(keys)
		}
		if ib < 0 {
			ib = len(keys)
		}
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		v := fields[name]
		k, ok := lookup(name)
		switch {
		case !ok:
			problems = append(problems, Problem{Source: src.Name, Key: name,
				Message: "unknown setting (known: " + strings.Join(Keys(), ", ") + ")"})
			continue
		case k.risk != "" && !src.Trusted:
			msg := "ignored: " + k.risk
			if src.Untrusted != "" {
				msg += "; " + src.Untrusted
			}
			problems = append(problems, Problem{Source: src.Name, Key: name, Message: msg, Ignored: true})
			continue
		}
		tried := next
		if err := k.set(&tried, v, checks); err != nil {
			problems = append(problems, Problem{Source: src.Name, Key: name, Message: err.Error() + "; keeping the previous one"})
			continue
		}
		next = tried
	}
	return next, problems
}

// object decodes raw as a settings object; an empty or null raw is an
// empty object.
func object(raw json.RawMessage) (map[string]json.RawMessage, string) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, ""
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, "the settings are not a JSON object: " + err.Error()
	}
	if inner, ok := fields["agentls"]; ok && len(fields) == 1 {
		fields = nil
		if err := json.Unmarshal(inner, &fields); err != nil {
			return nil, "agentls: the settings are not a JSON object: " + err.Error()
		}
	}
	return fields, ""
}

// field returns the set function of a key stored at get(s), checked by
// check (nil: any value of the type).
func field[T any](get func(*Settings) *T, check func(T) error) func(*Settings, []byte, Checks) error {
	return func(s *Settings, v []byte, _ Checks) error {
		return decode(get(s), v, check)
	}
}

// owned returns the set function of a key stored at get(s) whose meaning
// another package owns: checked by the check pick finds in the Checks
// given (nil: any value of the type).
func owned[T any](get func(*Settings) *T, pick func(Checks) func(T) error) func(*Settings, []byte, Checks) error {
	return func(s *Settings, v []byte, c Checks) error {
		return decode(get(s), v, pick(c))
	}
}

// decode stores v, decoded and checked by check (nil: none), at dst.
func decode[T any](dst *T, v []byte, check func(T) error) error {
	var val T
	if err := json.Unmarshal(v, &val); err != nil {
		return fmt.Errorf("%s is not a valid value (%v)", clipValue(v), err)
	}
	if check != nil {
		if err := check(val); err != nil {
			return err
		}
	}
	*dst = val
	return nil
}

// clipValue shows a bad value in a message, shortened; a value that looks
// like a key is never echoed.
func clipValue(v []byte) string {
	s := string(v)
	if strings.Contains(s, "sk-") {
		return "the value"
	}
	return text.Shorten(s, 60, "…")
}

// Keys set in raw (after unwrapping a section), sorted; for telling the
// user which keys a file sets.
func KeysIn(raw json.RawMessage) []string {
	fields, _ := object(raw)
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
