package memory

import (
	"errors"
	"fmt"
)

// Error codes. Every adapter keeps one table mapping these to its own
// vocabulary (HTTP status, MCP error, process exit code).
const (
	EINVALID      = "invalid"   // the caller's input is wrong
	ENOTFOUND     = "not_found" // a bank, fact, entity… does not exist
	ECONFLICT     = "conflict"  // the operation clashes with existing state
	EUNAUTHORIZED = "unauthorized"
	EUNAVAILABLE  = "unavailable" // a dependency (provider, database) is down
	EINTERNAL     = "internal"    // a bug or an unexpected failure
)

// EFORBIDDEN is the code of valid credentials that do not allow the
// operation (an API key of too small a scope); EUNAUTHORIZED is the code
// of no valid credentials (an unknown, revoked or expired key).
const EFORBIDDEN = "forbidden"

// Error is mnemo's application error: a code from the list above and a
// message safe to show to the caller. Errors that are not *Error are
// internal: adapters log them in full and show "internal error".
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or
// "internal error" for any other non-nil error.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
