//go:build linux

package proc

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkStartReap is a child's whole life through a Guard (locked
// thread, two lines to the watchdog, the scan of /proc at Reap) beside
// plain exec of the same program.
func BenchmarkStartReap(b *testing.B) {
	b.Run("exec-baseline", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("guard", func(b *testing.B) {
		g := NewGuard()
		defer g.Close()
		for b.Loop() {
			p, err := g.Start(exec.Command("true"), nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Reap(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMembers is the scan of /proc that finds what is left of a
// session (at Reap, at Kill, in the watchdog): it grows with the number of
// processes on the machine, here the ones already running plus n more.
func BenchmarkMembers(b *testing.B) {
	for _, n := range []int{0, 200, 800} {
		b.Run(fmt.Sprintf("extra=%d", n), func(b *testing.B) {
			for range n {
				cmd := exec.Command("sleep", "600")
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			}
			ids := map[int]bool{1 << 30: true} // no such session: the whole scan
			for b.Loop() {
				members(ids, false)
			}
		})
	}
}
