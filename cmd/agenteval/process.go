package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"time"
)

// A process is one tool run: what every driver times and reads the same
// way.
type process struct {
	stdout, stderr string
	wall           time.Duration // from the process's start to its exit
	exit           int           // -1: killed at the timeout
	err            error         // it could not start
}

// runProcess runs argv in dir with env added to this process's, with no
// input (a tool that asks a question gets end of file), and times it from
// start to exit: the same timed region for every tool.
func runProcess(ctx context.Context, dir string, env []string, argv ...string) process {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	p := process{wall: time.Since(start)}
	p.stdout, p.stderr = stdout.String(), stderr.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		p.exit = -1
	case errors.As(err, &exit):
		p.exit = exit.ExitCode()
	case err != nil:
		p.err = err
	}
	return p
}
