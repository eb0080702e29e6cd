package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/procs/jobs"
)

type jobArgs struct {
	Command string `json:"command"`
	Job     int    `json:"job"`
	Show    bool   `json:"show"` // jobs.output: open the log file too
}

// jobInfo is a job as the commands return it.
type jobInfo struct {
	ID       int     `json:"id"`
	Command  string  `json:"command"`
	Running  bool    `json:"running"`
	ExitCode int     `json:"exitCode"`
	Seconds  float64 `json:"seconds"`
	Log      string  `json:"log,omitempty"`
}

func toJobInfo(i jobs.Info) jobInfo {
	return jobInfo{ID: i.ID, Command: i.Command, Running: i.Running, ExitCode: i.ExitCode, Seconds: i.Duration.Seconds(), Log: i.LogPath}
}

// jobCommand runs agentls.run and the agentls.jobs commands. They answer
// at once; a job runs in the background.
func (s *Server) jobCommand(command string, a jobArgs) (any, error) {
	h, err := s.cmds.get()
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	if command == cmdRun {
		if strings.TrimSpace(a.Command) == "" {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agentls.run takes {command}")
		}
		info, err := h.StartJob(s.ctx, a.Command)
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("agentls.run: %v", err))
		}
		return map[string]int{"job": info.ID}, nil
	}
	if command == cmdJobsList {
		out := []jobInfo{}
		for _, i := range h.Jobs().List() {
			out = append(out, toJobInfo(i))
		}
		return out, nil
	}
	info, ok := h.Jobs().Info(a.Job)
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: no job %d (agentls.jobs.list lists them)", command, a.Job))
	}
	if command == cmdJobsKill {
		s.goBackground("kill job", func(ctx context.Context) {
			got, err := h.Jobs().Kill(ctx, a.Job)
			if err != nil {
				s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: kill job %d: %v", a.Job, err)
				return
			}
			s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: %s", jobs.KilledMessage(got))
		})
		return toJobInfo(info), nil
	}
	o, err := h.Jobs().Output(a.Job, 0, 0)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if a.Show && info.LogPath != "" {
		s.goBackground("show job log", func(ctx context.Context) { s.showFile(ctx, info.LogPath) })
	}
	return map[string]any{"job": toJobInfo(info), "stdout": o.Stdout, "stderr": o.Stderr, "text": jobs.FormatOutput(info, o)}, nil
}

// showFile opens a file in the editor where it can, else names it.
func (s *Server) showFile(ctx context.Context, file string) {
	if !s.client.showDocument(ctx, file) {
		s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: the full output is in %s", file)
	}
}
