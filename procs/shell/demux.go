package shell

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// sentinel frames one command's output on both pipes of the shell. Its
// token is random and fresh per command, so no output can fake the end of
// a command, not even one that printed an earlier command's sentinel.
//
// On each pipe the shell prints begin before the command and, after it,
// end + "<status> <dir>" + close. Every marker starts with a newline of our
// own, so output that lacks a final newline still ends before the marker,
// and the newline is not part of the output.
type sentinel struct {
	token string
	begin []byte // "\n" + token + ">\n"
	end   []byte // "\n" + token + "<"
	close []byte // "<" + token + "\n"
}

func newSentinel() *sentinel {
	var b [12]byte  // 96 bits: never guessed, never repeated
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	token := hex.EncodeToString(b[:])
	return &sentinel{
		token: token,
		begin: []byte("\n" + token + ">\n"),
		end:   []byte("\n" + token + "<"),
		close: []byte("<" + token + "\n"),
	}
}

// framing defines the two shell functions that print the markers; a
// new shell reads it before its first command. Functions keep what bash
// reads per command short, which matters because bash reads a script from
// a pipe one byte per system call. The user's command itself never runs
// inside a function (where `return` would skip the end marker, and
// `local` would mean something else).
const framing = `__agentls_begin() { __agentls_token=$1; builtin printf '\n%s>\n' "$1"; builtin printf '\n%s>\n' "$1" >&2; }
__agentls_end() { local s=$?; builtin printf '\n%s<%d %s<%s\n' "$__agentls_token" "$s" "$PWD" "$__agentls_token"; builtin printf '\n%s<%d %s<%s\n' "$__agentls_token" "$s" "$PWD" "$__agentls_token" >&2; }
`

// script is what the shell reads to run command: the command goes through
// eval, so that no command text, however malformed, can break the framing
// around it, and with stdin from /dev/null. It is all one line: a bash
// whose parser an earlier eval left confused (an unterminated quote inside
// eval makes bash stop recognising `{` on the next line) still runs it.
func (s *sentinel) script(command string) []byte {
	quoted := "'" + strings.ReplaceAll(command, "'", `'\''`) + "'"
	return []byte("__agentls_begin " + s.token + "; builtin eval " + quoted + " </dev/null; __agentls_end\n")
}

// streamJob is one command's share of one pipe.
type streamJob struct {
	cmd      int
	sentinel *sentinel
	keep     keeper
	log      *commandLog // nil when there is no log file
	begun    bool        // the begin marker was seen
	done     chan struct{}

	// Set before done is closed.
	trailer bool   // the end marker was seen (not end of file)
	status  int    // the command's exit status, from the trailer
	dir     string // the shell's directory after the command, from the trailer
}

func newStreamJob(cmd int, s *sentinel, head, tail int, log *commandLog) *streamJob {
	return &streamJob{cmd: cmd, sentinel: s, keep: keeper{headMax: head, tailMax: tail}, log: log, done: make(chan struct{})}
}

// demux reads one pipe of the shell and hands its bytes to the current
// command, or, between commands (output of processes left running in the
// background), to the output callback alone.
type demux struct {
	stream string // "stdout" or "stderr"
	output func(cmd int, stream string, p []byte)
	eof    chan struct{} // closed when the pipe is done

	mu   sync.Mutex
	job  *streamJob // the running command; nil between commands
	dead bool       // the pipe is done: a new job finishes at once
}

func newDemux(stream string, output func(int, string, []byte)) *demux {
	return &demux{stream: stream, output: output, eof: make(chan struct{})}
}

// start makes job the receiver of the pipe's output from its begin marker
// on. It must be called before the shell is sent the command.
func (d *demux) start(job *streamJob) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		close(job.done)
		return
	}
	d.job = job
}

// run reads r until it fails or ends. Bytes that might be the start of a
// marker split across reads are held back until the next read decides.
func (d *demux) run(r io.Reader) {
	chunk := make([]byte, 64<<10) // a whole pipe buffer per read
	var held []byte
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			data := chunk[:n]
			if len(held) > 0 {
				held = append(held, data...)
				data = held
			}
			d.mu.Lock()
			rest := d.consume(data)
			d.mu.Unlock()
			held = append(held[:0], rest...) // rest may overlap held: append copies like memmove
		}
		if err != nil {
			d.mu.Lock()
			d.finish(held)
			d.mu.Unlock()
			close(d.eof)
			return
		}
	}
}

// consume hands data to its receivers and returns the suffix it cannot
// decide on yet. d.mu is held.
func (d *demux) consume(data []byte) []byte {
	for len(data) > 0 {
		job := d.job
		if job == nil {
			d.emitStale(data)
			return nil
		}
		s := job.sentinel
		if !job.begun {
			i := bytes.Index(data, s.begin)
			if i < 0 {
				keep := partialSuffix(data, s.begin)
				d.emitStale(data[:len(data)-keep])
				return data[len(data)-keep:]
			}
			d.emitStale(data[:i])
			data = data[i+len(s.begin):]
			job.begun = true
			continue
		}
		i := bytes.Index(data, s.end)
		if i < 0 {
			keep := partialSuffix(data, s.end)
			d.emit(job, data[:len(data)-keep])
			return data[len(data)-keep:]
		}
		d.emit(job, data[:i])
		// The trailer comes from one printf, so it is short and whole; it
		// only waits for the next read if the pipe split it. Only our
		// printf writes the token, so the wait always ends.
		trailer := data[i+len(s.end):]
		j := bytes.Index(trailer, s.close)
		if j < 0 {
			return data[i:]
		}
		job.status, job.dir = parseTrailer(string(trailer[:j]))
		job.trailer = true
		d.job = nil
		close(job.done)
		data = trailer[j+len(s.close):]
	}
	return nil
}

// finish ends the pipe: held bytes are output unless they are our own
// unfinished trailer. d.mu is held.
func (d *demux) finish(held []byte) {
	d.dead = true
	job := d.job
	if job == nil {
		d.emitStale(held)
		return
	}
	if job.begun && !bytes.HasPrefix(held, job.sentinel.end) {
		d.emit(job, held)
	}
	d.job = nil
	close(job.done)
}

func (d *demux) emit(job *streamJob, p []byte) {
	if len(p) == 0 {
		return
	}
	job.keep.write(p)
	job.log.write(p)
	if d.output != nil {
		d.output(job.cmd, d.stream, p)
	}
}

// emitStale passes on output that belongs to no command (cmd 0).
func (d *demux) emitStale(p []byte) {
	if len(p) > 0 && d.output != nil {
		d.output(0, d.stream, p)
	}
}

// partialSuffix is the length of the longest suffix of data that is a
// proper prefix of marker: bytes that may yet turn out to be the marker.
func partialSuffix(data, marker []byte) int {
	for i := max(0, len(data)-len(marker)+1); i < len(data); i++ {
		if data[i] == marker[0] && bytes.HasPrefix(marker, data[i:]) {
			return len(data) - i
		}
	}
	return 0
}

// parseTrailer reads "<status> <dir>".
func parseTrailer(s string) (status int, dir string) {
	code, dir, _ := strings.Cut(s, " ")
	status, err := strconv.Atoi(code)
	if err != nil {
		status = -1
	}
	return status, dir
}

// commandLog is the file that receives a command's full output, both
// streams in the order they arrived.
type commandLog struct {
	mu   sync.Mutex
	file *os.File
	err  error // the first write error; later writes are skipped
}

func (l *commandLog) write(p []byte) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.file.Write(p)
	}
}

func (l *commandLog) close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.file.Close(); l.err == nil {
		l.err = err
	}
	return l.err
}
