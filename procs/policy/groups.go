package policy

import "strings"

// A DenyGroup is a kind of command the rules refuse, worded for a person
// (agentls policy prints it). The reason a Verdict carries is worded for
// the model: what to do instead.
type DenyGroup struct {
	Name string // "destructive file operations"
	// Does says what a command of the group does, after its name: "rm
	// -rf / <Does>".
	Does string
}

// reasons are the deny reasons a group gave, in the order GroupOf tries
// them.
func reasons() []string {
	return []string{reasonBulkGit, reasonGit, reasonFile, reasonChmod, reasonKill, reasonPipe, reasonConfig, reasonDiscard, reasonDisk, reasonForkBomb, reasonCrontab}
}

// groupOfReason is the group of one deny reason.
func groupOfReason(r string) DenyGroup {
	switch r {
	case reasonBulkGit:
		return DenyGroup{"bulk git staging", "stages every file at once, unreviewed"}
	case reasonGit:
		return DenyGroup{"destructive git operations", "can lose commits or uncommitted work"}
	case reasonFile:
		return DenyGroup{"destructive file operations", "can delete a whole tree or system files"}
	case reasonChmod:
		return DenyGroup{"overly permissive chmod", "lets anyone write or run the files"}
	case reasonKill:
		return DenyGroup{"killing processes indiscriminately", "kills processes by name or all at once"}
	case reasonPipe:
		return DenyGroup{"piping into a shell", "runs code piped into a shell or interpreter, unseen"}
	case reasonConfig:
		return DenyGroup{"your commandDenylist", "is on your commandDenylist"}
	case reasonDiscard:
		return DenyGroup{"discarding uncommitted changes", "discards every uncommitted change"}
	case reasonDisk:
		return DenyGroup{"disk devices", "writes to a disk device or makes a file system"}
	case reasonForkBomb:
		return DenyGroup{"fork bombs", "starts copies of itself until the machine runs out of processes"}
	case reasonCrontab:
		return DenyGroup{"removing the crontab", "removes your whole crontab"}
	}
	return DenyGroup{}
}

// GroupOf returns the deny group of a Deny verdict's reason and the
// command it names ("rm -rf /"); ok is false for a reason no group gave.
func GroupOf(reason string) (command string, g DenyGroup, ok bool) {
	for _, r := range reasons() {
		if reason == r {
			return "", groupOfReason(r), true
		}
		if cmd, found := strings.CutSuffix(reason, ": "+r); found {
			return cmd, groupOfReason(r), true
		}
	}
	return "", DenyGroup{}, false
}
