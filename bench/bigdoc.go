package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Large inputs for the memory measurements of one huge document and of a
// large import file (docs/scale.md "Bounded memory"): generated from a
// seed, never read from a data set, so that any size can be made on any
// machine and the same seed gives the same bytes.

// WriteDocument writes about size bytes of plain text to w: paragraphs of
// three to eight sentences of the synthetic bank's vocabulary (names,
// places, organisations, dates and numbers, so that extraction finds
// entities, dates and links), separated by blank lines. The same size and
// seed give the same text. It returns the bytes written.
func WriteDocument(w io.Writer, size int, seed int64) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	g := newSynGen(seed, synBigDocStream)
	at := synEpoch
	n := 0
	for n < size {
		k := 3 + g.r.IntN(6)
		for i := range k {
			s := g.sentence(g.person(), g.person(), at)
			if i > 0 {
				s = " " + s
			}
			m, err := bw.WriteString(s)
			n += m
			if err != nil {
				return n, err
			}
			at = at.Add(time.Duration(g.r.IntN(120)) * time.Minute)
		}
		m, err := bw.WriteString("\n\n")
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// WriteConversations writes about size bytes of a LoCoMo-shaped JSON
// file to w (the shape importer.ReadLoCoMo reads): conversations of
// sessionsPer sessions of two speakers, each session a few dozen turns of
// the synthetic bank's sentences, its date_time in LoCoMo's form, and no
// questions. The same size, sessionsPer and seed give the same file. It
// returns the bytes written.
func WriteConversations(w io.Writer, size, sessionsPer int, seed int64) (int, error) {
	if sessionsPer < 1 {
		return 0, fmt.Errorf("sessions per conversation: want at least 1, not %d", sessionsPer)
	}
	cw := &countWriter{w: bufio.NewWriterSize(w, 1<<16)}
	g := newSynGen(seed, synConvStream)
	at := synEpoch
	cw.write("[")
	for c := 0; cw.n < size && cw.err == nil; c++ {
		if c > 0 {
			cw.write(",")
		}
		a, b := g.person(), g.person()
		cw.write(fmt.Sprintf("\n{\"sample_id\": \"gen-%d\", \"qa\": [], \"conversation\": {\"speaker_a\": %q, \"speaker_b\": %q", c, a.first, b.first))
		for s := 1; s <= sessionsPer && cw.n < size; s++ {
			at = at.Add(time.Duration(20+g.r.IntN(100)) * time.Hour)
			cw.write(fmt.Sprintf(",\n \"session_%d_date_time\": %q, \"session_%d\": [", s, at.Format("3:04 pm on 2 January, 2006"), s))
			turns := 20 + g.r.IntN(40)
			for t := 1; t <= turns; t++ {
				speaker, other := a, b
				if t%2 == 0 {
					speaker, other = b, a
				}
				text := g.sentence(speaker, other, at)
				if g.r.IntN(3) == 0 {
					text += " " + g.sentence(speaker, other, at)
				}
				turn, _ := json.Marshal(map[string]string{"speaker": speaker.first, "dia_id": fmt.Sprintf("D%d:%d", s, t), "text": text})
				if t > 1 {
					cw.write(",")
				}
				cw.write("\n  " + string(turn))
			}
			cw.write("]")
		}
		cw.write("}}")
	}
	cw.write("\n]\n")
	if cw.err != nil {
		return cw.n, cw.err
	}
	return cw.n, cw.w.Flush()
}

// The PCG streams of the large inputs (the cast is the seed's).
const (
	synBigDocStream = 0x6d6e656d6f_04
	synConvStream   = 0x6d6e656d6f_05
)

// countWriter writes strings and keeps the count and the first error.
type countWriter struct {
	w   *bufio.Writer
	n   int
	err error
}

func (c *countWriter) write(s string) {
	if c.err != nil {
		return
	}
	m, err := c.w.WriteString(s)
	c.n += m
	c.err = err
}
