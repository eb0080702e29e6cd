package jobs

// A Ring keeps the last bytes written to it, up to a fixed capacity: when
// it is full the oldest bytes are overwritten. It counts every byte it was
// given, so a reader can say how many were dropped.
//
// Its memory grows with what it holds, up to the capacity, so an idle job
// costs nothing. A Ring is not safe for concurrent use.
type Ring struct {
	buf     []byte // the bytes held; once len(buf) == limit, buf[head:] is older than buf[:head]
	head    int    // where the next byte goes once the ring is full
	limit   int
	written int64
}

// NewRing returns a ring that keeps the last capacity bytes (at least 1).
func NewRing(capacity int) *Ring {
	return &Ring{limit: max(capacity, 1)}
}

// Write keeps p, dropping the oldest bytes if needed. It never fails.
func (r *Ring) Write(p []byte) (int, error) {
	n := len(p)
	r.written += int64(n)
	if n >= r.limit {
		// Only p's tail survives: it replaces everything.
		r.reserve(r.limit)
		r.buf = r.buf[:r.limit]
		copy(r.buf, p[n-r.limit:])
		r.head = 0
		return n, nil
	}
	if len(r.buf) < r.limit {
		room := r.limit - len(r.buf)
		if n <= room {
			r.reserve(len(r.buf) + n)
			r.buf = append(r.buf, p...)
			return n, nil
		}
		r.reserve(r.limit)
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		// r.head is 0: the ring just became full and its oldest byte is buf[0].
	}
	k := copy(r.buf[r.head:], p)
	copy(r.buf, p[k:])
	r.head = (r.head + len(p)) % r.limit
	return n, nil
}

// reserve makes room for n bytes (n <= limit) without ever holding more
// memory than the limit, which plain append, doubling, could exceed.
func (r *Ring) reserve(n int) {
	if n <= cap(r.buf) {
		return
	}
	c := min(max(2*cap(r.buf), n, 4096), r.limit)
	buf := make([]byte, len(r.buf), c)
	copy(buf, r.buf)
	r.buf = buf
}

// compact gives back the room the ring holds beyond its bytes, for a
// ring that will be written no more (a finished job's): a full ring has
// none; one that is not full may hold up to twice its bytes.
func (r *Ring) compact() {
	if cap(r.buf) == len(r.buf) {
		return
	}
	buf := make([]byte, len(r.buf)) // not full: oldest first, head unused
	copy(buf, r.buf)
	r.buf = buf
}

// Len is the number of bytes held.
func (r *Ring) Len() int { return len(r.buf) }

// Cap is the most bytes the ring holds.
func (r *Ring) Cap() int { return r.limit }

// Written is the number of bytes ever written.
func (r *Ring) Written() int64 { return r.written }

// Dropped is the number of bytes written but no longer held.
func (r *Ring) Dropped() int64 { return r.written - int64(len(r.buf)) }

// Bytes returns a copy of the bytes held, oldest first.
func (r *Ring) Bytes() []byte { return r.Last(0) }

// Last returns a copy of the last n bytes held (all of them if n <= 0 or n
// is more than the ring holds), oldest first.
func (r *Ring) Last(n int) []byte {
	if n <= 0 || n > len(r.buf) {
		n = len(r.buf)
	}
	out := make([]byte, n)
	if len(r.buf) < r.limit {
		copy(out, r.buf[len(r.buf)-n:])
		return out
	}
	// Full: the newest byte is just before head.
	if n <= r.head {
		copy(out, r.buf[r.head-n:r.head])
		return out
	}
	older := n - r.head
	k := copy(out, r.buf[r.limit-older:])
	copy(out[k:], r.buf[:r.head])
	return out
}
