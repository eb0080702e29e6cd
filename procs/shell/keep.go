package shell

// Gap is the part of a command's output that a Result did not keep in
// memory: Bytes bytes that came after the first At bytes of the kept text.
// The command's log file has them.
type Gap struct {
	At    int
	Bytes int64
}

// keeper keeps the first headMax and the last tailMax bytes of a stream
// and counts the ones in between, so that memory stays bounded however
// much a command prints.
type keeper struct {
	headMax, tailMax int
	head             []byte
	ring             []byte // the tail, allocated on first use; len(ring) == tailMax
	ringPos          int    // where the next tail byte goes
	ringLen          int    // how much of ring holds output
	total            int64
}

func (k *keeper) write(p []byte) {
	k.total += int64(len(p))
	if n := min(k.headMax-len(k.head), len(p)); n > 0 {
		k.head = append(k.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 || k.tailMax <= 0 {
		return
	}
	if k.ring == nil {
		k.ring = make([]byte, k.tailMax)
	}
	if len(p) >= k.tailMax {
		copy(k.ring, p[len(p)-k.tailMax:])
		k.ringPos, k.ringLen = 0, k.tailMax
		return
	}
	n := copy(k.ring[k.ringPos:], p)
	copy(k.ring, p[n:])
	k.ringPos = (k.ringPos + len(p)) % k.tailMax
	k.ringLen = min(k.ringLen+len(p), k.tailMax)
}

// text is the kept output, head then tail, and where the dropped middle
// was.
func (k *keeper) text() (string, Gap) {
	buf := make([]byte, 0, len(k.head)+k.ringLen)
	buf = append(buf, k.head...)
	if k.ringLen < len(k.ring) {
		buf = append(buf, k.ring[:k.ringLen]...)
	} else if k.ringLen > 0 {
		buf = append(buf, k.ring[k.ringPos:]...)
		buf = append(buf, k.ring[:k.ringPos]...)
	}
	gap := Gap{Bytes: k.total - int64(len(buf))}
	if gap.Bytes > 0 {
		gap.At = len(k.head)
	}
	return string(buf), gap
}
