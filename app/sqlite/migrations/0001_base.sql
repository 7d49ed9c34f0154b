-- Base schema. Times are Unix milliseconds (UTC). Text columns default to ''
-- rather than NULL so the Go side never has to tell "empty" from "unset".

-- Settings as JSON values under a few keys ('settings', and 'api_key' when no
-- OS keychain is available).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Change counters polled by other processes (the settings window and the
-- running app share this file).
CREATE TABLE revisions (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO revisions (name, value) VALUES ('settings', 0), ('conversations', 0);

CREATE TABLE conversations (
    id                  TEXT PRIMARY KEY,
    mode                TEXT NOT NULL DEFAULT 'deactivated',
    summary             TEXT NOT NULL DEFAULT '',
    customization       TEXT NOT NULL DEFAULT '',
    profiles            TEXT NOT NULL DEFAULT '{}',
    last_message_id     TEXT NOT NULL DEFAULT '',
    last_message_sender TEXT NOT NULL DEFAULT '',
    last_message_text   TEXT NOT NULL DEFAULT '',
    news_state          TEXT NOT NULL DEFAULT '{}',
    last_seen           INTEGER NOT NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
CREATE INDEX conversations_last_seen ON conversations (last_seen);

CREATE TABLE image_cache (
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    source          TEXT NOT NULL,
    mime            TEXT NOT NULL,
    width           INTEGER NOT NULL,
    height          INTEGER NOT NULL,
    size            INTEGER NOT NULL,
    data            BLOB NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, source)
);

-- Usage rows are accounting, not conversation state: they are kept when a
-- conversation is purged so a purge cannot reset the monthly budget.
CREATE TABLE usage (
    id                INTEGER PRIMARY KEY,
    conversation_id   TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL CHECK (prompt_tokens >= 0),
    completion_tokens INTEGER NOT NULL CHECK (completion_tokens >= 0),
    at                INTEGER NOT NULL
);
CREATE INDEX usage_at ON usage (at);
