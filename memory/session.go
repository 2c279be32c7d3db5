package memory

// ValidateSessionMessage reports whether m can be buffered in a session:
// its Role is RoleUser or RoleAssistant (a session is a chat between a
// user and an assistant; tool turns and system prompts are not
// remembered). It returns nil or an EINVALID *Error. The façade checks a
// message with it before appending, and every [SessionBuffer] checks the
// messages of AppendSession with it again, so the rule is the same
// whoever calls the store.
func ValidateSessionMessage(m SessionMessage) error {
	if m.Role != RoleUser && m.Role != RoleAssistant {
		return Errorf(EINVALID, "role %q is not user or assistant", m.Role)
	}
	return nil
}
