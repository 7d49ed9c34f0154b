-- The engine's per-conversation timestamps get real columns (Unix ms, 0 =
-- unknown) instead of living in the news_state JSON, so the engine's record
-- reads and writes in one plain row. Values already in news_state are carried
-- over; a news_state that is not valid JSON (or holds no parseable time)
-- becomes 0, which the engine reads as "age unknown". news_state itself is
-- left in place so this step only adds.
ALTER TABLE conversations ADD COLUMN last_message_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversations ADD COLUMN last_news_check INTEGER NOT NULL DEFAULT 0;
UPDATE conversations SET
    last_message_at = CASE WHEN json_valid(news_state)
        THEN COALESCE(CAST(unixepoch(json_extract(news_state, '$.lastMessage'), 'subsec') * 1000 AS INTEGER), 0)
        ELSE 0 END,
    last_news_check = CASE WHEN json_valid(news_state)
        THEN COALESCE(CAST(unixepoch(json_extract(news_state, '$.lastCheck'), 'subsec') * 1000 AS INTEGER), 0)
        ELSE 0 END;
