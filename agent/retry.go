package agent

import (
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// retryTransport retries a request that failed before any of its answer
// was read: on 429 and 5xx responses and on connections reset or closed
// under it, with exponential backoff and jitter, honouring Retry-After,
// a bounded number of times. A stream that breaks after it began is not
// retried here: its text was already seen by the caller.
type retryTransport struct {
	base    http.RoundTripper
	retries int           // attempts after the first
	backoff time.Duration // the first wait; doubled each time
	maxWait time.Duration // no single wait is longer
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		resp, err := t.base.RoundTrip(req)
		if !retryable(resp, err) || attempt >= t.retries || req.Context().Err() != nil {
			return resp, err
		}
		wait := t.wait(attempt, resp)
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		}
	}
}

func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

// wait is how long to wait before attempt+1: the server's Retry-After
// (seconds or an HTTP date) if it gave one, else backoff·2^attempt with
// up to 50% jitter; never more than maxWait.
func (t *retryTransport) wait(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			if s, err := strconv.Atoi(ra); err == nil && s >= 0 {
				return min(time.Duration(s)*time.Second, t.maxWait)
			}
			if at, err := http.ParseTime(ra); err == nil {
				return min(max(time.Until(at), 0), t.maxWait)
			}
		}
	}
	d := t.backoff << attempt
	d += time.Duration(rand.Int64N(int64(d)/2 + 1))
	return min(d, t.maxWait)
}
