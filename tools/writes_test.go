package tools

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestTurnWritesConcurrent: edit calls record while the shell reads and
// approves; a file written again after an approval is pending again.
func TestTurnWritesConcurrent(t *testing.T) {
	w := &TurnWrites{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				w.Add(fmt.Sprintf("f%d_%d.go", i, j%5))
				w.Approve(w.Pending())
				w.Add("shared.go")
			}
		})
	}
	wg.Wait()
	w.Approve(w.Pending())
	if got, _ := w.Pending(); len(got) != 0 {
		t.Errorf("pending after approving all: %v", got)
	}
	w.Add("f0_0.go")
	paths, counts := w.Pending()
	if !slices.Equal(paths, []string{"f0_0.go"}) {
		t.Errorf("pending = %v, want the file written again", paths)
	}
	w.Add("f0_0.go") // written again while the user was asked
	w.Approve(paths, counts)
	if got, _ := w.Pending(); !slices.Equal(got, []string{"f0_0.go"}) {
		t.Errorf("pending = %v, want the file written during the question", got)
	}
	if got, _ := (*TurnWrites)(nil).Pending(); got != nil {
		t.Error("a nil TurnWrites has files")
	}
}
