package sqlite

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"math"
	"time"
)

// Times are stored as microseconds since the epoch, UTC; the zero time is
// NULL.

func toMicro(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

func fromMicro(v int64) time.Time {
	return time.UnixMicro(v).UTC()
}

func fromNullMicro(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMicro(v.Int64)
}

// encodeVector writes a float32 vector as little-endian bytes.
func encodeVector(v []float32) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector appends the vector in b to dst.
func decodeVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}

func marshalJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func unmarshalJSON(s string, v any) error {
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), v)
}

// stringsJSON encodes a string list, never as null.
func stringsJSON(v []string) string {
	if len(v) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
