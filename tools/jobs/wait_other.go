//go:build unix && !linux

package jobs

import "os/exec"

// waitExited reaps cmd's process. Without Linux's waitid(WNOWAIT) the
// process group is signalled after the reap, when (in theory) its id could
// already belong to a new group.
func waitExited(cmd *exec.Cmd) (reap func() error) {
	err := cmd.Wait()
	return func() error { return err }
}
