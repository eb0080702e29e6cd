package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// loadReports reads the results of one or more runs and merges them into
// one report, so that a suite a run left unfinished (a timeout, a
// session's end) can be finished by another run of the rest and shown as
// one table. Each file is a report written by --json, or the
// results.jsonl a kept run (--work, --keep) writes as it goes, one result
// a line, which is there even when the run was killed. A run of one tool
// on one task is taken from the last file that has it, so a run made
// again replaces the earlier one. Reports of different models are not
// merged.
func loadReports(files []string) (Report, error) {
	var (
		rep    Report
		order  []string // tool/task/run keys, first seen first
		byKey  = map[string]Result{}
		named  = map[string]bool{}
		header bool
	)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return Report{}, err
		}
		one, results, err := decodeResults(data)
		if err != nil {
			return Report{}, fmt.Errorf("%s: %w", file, err)
		}
		if one != nil {
			if header && one.Model != rep.Model {
				return Report{}, fmt.Errorf("%s: model %q, but %s has %q: results of different models are not merged", file, one.Model, files[0], rep.Model)
			}
			if !header {
				rep.Model, rep.BaseURL, rep.Format, header = one.Model, one.BaseURL, one.Format, true
			}
			rep.Interrupted = rep.Interrupted || one.Interrupted
			for _, t := range one.Tasks {
				named[t] = true
			}
		}
		for _, r := range results {
			key := runKey(r.Tool, r.Task, r.Run)
			if _, ok := byKey[key]; !ok {
				order = append(order, key)
			}
			byKey[key] = r
			named[r.Task] = true
			if !slices.Contains(rep.Tools, r.Tool) {
				rep.Tools = append(rep.Tools, r.Tool)
			}
		}
	}
	for _, key := range order {
		rep.Results = append(rep.Results, byKey[key])
	}
	if header { // else the tasks asked for are not known: the caller's suite
		for t := range named {
			rep.Tasks = append(rep.Tasks, t)
		}
		slices.Sort(rep.Tasks)
	}
	rep.Total = summarize(rep.Results)
	return rep, nil
}

// decodeResults reads a --json report (returned with its results) or a
// results.jsonl (results only, report nil).
func decodeResults(data []byte) (*Report, []Result, error) {
	var rep Report
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rep); err == nil && !dec.More() && rep.Model != "" {
		return &rep, rep.Results, nil
	}
	var results []Result
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r Result
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Tool == "" || r.Task == "" {
			return nil, nil, fmt.Errorf("line %d is neither a report written by --json nor a result of a results.jsonl", n)
		}
		results = append(results, r)
	}
	return nil, results, sc.Err()
}
