-- Memory edits asked for in the settings window, which runs in its own process. The
-- running app carries each one out through its engine, so an answer in flight cannot
-- write over the user's edit. A row lives from the request until the app has applied it
-- ('done' or 'failed') or the window stopped waiting ('cancelled'); finished rows are
-- deleted when the next request is made. An edit with empty fields clears the memory.
CREATE TABLE memory_edits (
    id              INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    summary         TEXT NOT NULL DEFAULT '',
    customization   TEXT NOT NULL DEFAULT '',
    profiles        TEXT NOT NULL DEFAULT '{}',
    state           TEXT NOT NULL DEFAULT 'pending',
    error           TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL
);
INSERT INTO revisions (name, value) VALUES ('memory_edits', 0);
