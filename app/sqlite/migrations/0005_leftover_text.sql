-- Clanker's partial text left in a conversation's compose box (the user
-- switched away while it typed, so it could not be taken out then). The engine
-- takes it out when the conversation is shown again; storing it lets an engine
-- started after a restart do the same. '' means there is none.
ALTER TABLE conversations ADD COLUMN leftover_text TEXT NOT NULL DEFAULT '';
