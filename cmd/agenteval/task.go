package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Task is one folder of the suite: prompt.txt (what the user asks),
// files/ (the workspace it starts from) and check.sh (exits 0, run in the
// workspace, when the task is solved).
type Task struct {
	Name   string
	Dir    string // the task's folder
	Prompt string
}

// FilesDir is the folder the workspace is copied from.
func (t Task) FilesDir() string { return filepath.Join(t.Dir, "files") }

// CheckScript is the checker's path.
func (t Task) CheckScript() string { return filepath.Join(t.Dir, "check.sh") }

// loadTasks reads the tasks under dir whose names match glob (all when
// glob is ""), sorted by name. A folder missing a piece is an error: a
// task that cannot be checked would count as failed for the wrong reason.
func loadTasks(dir, glob string) ([]Task, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	var tasks []Task
	for _, e := range entries {
		// Stat follows a symlinked task folder.
		if fi, err := os.Stat(filepath.Join(dir, e.Name())); err != nil || !fi.IsDir() {
			continue
		}
		if glob != "" {
			ok, err := filepath.Match(glob, e.Name())
			if err != nil {
				return nil, fmt.Errorf("--tasks %q: %w", glob, err)
			}
			if !ok {
				continue
			}
		}
		t, err := loadTask(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("tasks: none in %s matches %q", dir, glob)
	}
	slices.SortFunc(tasks, func(a, b Task) int { return strings.Compare(a.Name, b.Name) })
	return tasks, nil
}

func loadTask(dir string) (Task, error) {
	// The checker runs in the workspace: its path must not be relative.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Task{}, fmt.Errorf("task %s: %w", dir, err)
	}
	t := Task{Name: filepath.Base(abs), Dir: abs}
	prompt, err := os.ReadFile(filepath.Join(dir, "prompt.txt"))
	if err != nil {
		return t, fmt.Errorf("task %s: %w", t.Name, err)
	}
	t.Prompt = strings.TrimSpace(string(prompt))
	if t.Prompt == "" {
		return t, fmt.Errorf("task %s: prompt.txt is empty", t.Name)
	}
	// No files/ folder is a task that starts from an empty workspace (git
	// keeps no empty folder); one that is not a folder is a mistake.
	if fi, err := os.Stat(t.FilesDir()); err == nil && !fi.IsDir() {
		return t, fmt.Errorf("task %s: files is not a folder", t.Name)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return t, fmt.Errorf("task %s: %w", t.Name, err)
	}
	if _, err := os.Stat(t.CheckScript()); err != nil {
		return t, fmt.Errorf("task %s: %w", t.Name, err)
	}
	return t, nil
}
