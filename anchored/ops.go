package anchored

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// An Op is one change of a patch_anchored batch.
type Op struct {
	Anchor string `json:"anchor"`
	// Op is replace, delete, insert_before or insert_after.
	Op string `json:"op"`
	// Text is the new line or lines (replace, insert_*). For replace, ""
	// deletes the line and "\n" leaves one empty line; a final "\n" adds no
	// line.
	Text *string `json:"text,omitempty"`
	// Expected, if set, must equal the line's current content, or the
	// batch is refused.
	Expected *string `json:"expected,omitempty"`
	// End, for replace and delete, extends the op from Anchor's line to
	// End's line, inclusive: a block.
	End string `json:"end,omitempty"`
	// EndExpected guards End's line as Expected guards Anchor's.
	EndExpected *string `json:"end_expected,omitempty"`
}

var opNames = []string{"replace", "delete", "insert_before", "insert_after"}

// ParseOps reads a JSON list of ops, or an object {"ops": [...]}.
func ParseOps(data string) ([]Op, error) {
	data = strings.TrimSpace(data)
	if strings.HasPrefix(data, "{") {
		var wrapper struct {
			Ops json.RawMessage `json:"ops"`
		}
		if err := json.Unmarshal([]byte(data), &wrapper); err != nil || wrapper.Ops == nil {
			return nil, fmt.Errorf("expected a JSON list of operations, or {\"ops\": [...]}")
		}
		data = string(wrapper.Ops)
	}
	// Most batches are well formed: one decode of the whole list, with
	// every op checked, gives what the op-by-op decode below gives; only
	// a batch that fails it is decoded again, op by op, for the error
	// that names the op (the two decodes cost 19 µs for 8 ops, most of
	// a kept view's apply at 10 KB).
	var ops []Op
	if json.Unmarshal([]byte(data), &ops) == nil && len(ops) > 0 && !slices.ContainsFunc(ops, func(o Op) bool { return o.check() != nil }) {
		return ops, nil
	}
	return parseOpsEach(data)
}

// parseOpsEach decodes a JSON list of ops one op at a time, so that an
// error names the op.
func parseOpsEach(data string) ([]Op, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(data), &raw); err != nil {
		return nil, fmt.Errorf("the operations are not a JSON list: %v", err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("no operations given")
	}
	ops := make([]Op, len(raw))
	for i, r := range raw {
		if !strings.HasPrefix(strings.TrimSpace(string(r)), "{") {
			return nil, fmt.Errorf("operation %d must be a JSON object", i+1)
		}
		if err := json.Unmarshal(r, &ops[i]); err != nil {
			return nil, fmt.Errorf("operation %d: %v", i+1, err)
		}
		if err := ops[i].check(); err != nil {
			return nil, fmt.Errorf("operation %d: %w", i+1, err)
		}
	}
	return ops, nil
}

func (o Op) check() error {
	if o.Anchor == "" {
		return fmt.Errorf("missing \"anchor\"")
	}
	valid := false
	for _, n := range opNames {
		valid = valid || o.Op == n
	}
	switch {
	case !valid:
		return fmt.Errorf("\"op\" is %q; expected one of %s", o.Op, strings.Join(opNames, ", "))
	case o.Text == nil && o.Op != "delete":
		return fmt.Errorf("%s needs \"text\"", o.Op)
	case o.End != "" && strings.HasPrefix(o.Op, "insert"):
		return fmt.Errorf("\"end\" makes a range, for replace and delete only")
	}
	return nil
}
