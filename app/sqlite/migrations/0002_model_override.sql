-- Per-conversation model override (empty = use the global model), and an index
-- for per-conversation usage totals.
ALTER TABLE conversations ADD COLUMN model_override TEXT NOT NULL DEFAULT '';
CREATE INDEX usage_conversation ON usage (conversation_id, at);
