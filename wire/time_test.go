package wire_test

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/wire"
)

func TestParseTime(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		got, err := wire.ParseTime("2024-03-04T18:02:00-05:00")
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2024, 3, 4, 23, 2, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime = %v, want %v in UTC", got, want)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, s := range []string{"", "   ", "yesterday", "04/03/2024", "2024-03-04T25:00", "2024-02-30", "1:56 pm on 31 February, 2023"} {
			_, err := wire.ParseTime(s)
			if got, want := memory.ErrorCode(err), memory.EINVALID; got != want {
				t.Errorf("ParseTime(%q): code %q, want %q (err %v)", s, got, want, err)
			}
		}
	})
}
