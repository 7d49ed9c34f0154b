package engine

// This file keeps each stored conversation's name as the sidebar shows it, so the settings
// window's Usage and Memory views can show names instead of Google's ids, including for
// conversations not opened since the name was first kept.

// learnName records the sidebar's name of conversation id. A changed name is also written
// to the conversation's stored record, when there is one: the conversation on screen has its
// name saved when it is opened (onOpened), and a conversation never stored gets its name
// when it is.
func (e *Engine) learnName(id ConversationID, name string) {
	if name == "" || e.sidebar.names[id] == name {
		return
	}
	e.sidebar.names[id] = name
	if e.screen.holds(id) {
		return
	}
	rec, ok, err := e.store.LoadConversation(id)
	if err != nil {
		e.log.Warn("engine: could not read a conversation to keep its name", "conversation", id, "err", err)
		return
	}
	if !ok || rec.Name == name {
		return
	}
	rec.Name = name
	e.save(rec)
}
