-- What the engine decided and announced in each conversation, what it knows
-- of who is in it, and which message ids it has seen where (issues 27, 28, 33).
--
-- decided_*: the newest message covered by a decision (answered, declined by
-- the model, released for a reason the user saw, or where Clanker started
-- listening). Messages after it that the mode would answer are still owed.
-- announced: the mode the people in the conversation were last told about
-- ('' = never). Clanker acts only as far as both mode and announced allow.
-- newest_at: the label time (Unix ms) of the newest message processed there.
ALTER TABLE conversations ADD COLUMN decided_id TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN decided_sender TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN decided_text TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN announced TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN newest_at INTEGER NOT NULL DEFAULT 0;
-- name: the conversation's name as the sidebar shows it; header: the names its
-- header showed in the last view the engine accepted; participants: the people
-- who wrote in it, in the views the engine accepted (both JSON lists). The
-- engine checks a new view against them before it believes it.
ALTER TABLE conversations ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN header TEXT NOT NULL DEFAULT '[]';
ALTER TABLE conversations ADD COLUMN participants TEXT NOT NULL DEFAULT '[]';
-- An earlier version announced every mode it switched on (or lost the notice
-- with no record of it); they are taken as announced, so an upgrade does not
-- post a second notice everywhere.
UPDATE conversations SET announced = mode WHERE mode IN ('available', 'active');

-- Message ids seen per conversation, the newest few thousand each: a message
-- id seen before is never new again, and an id seen in another conversation
-- shows a view that mixes conversations.
CREATE TABLE seen_messages (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, message_id)
) WITHOUT ROWID;
CREATE INDEX seen_messages_message ON seen_messages (message_id);
CREATE INDEX seen_messages_order ON seen_messages (conversation_id, seq);
