-- Roundhouse bot storage, version 11: a preview answered stays stored with how it was answered, so a second
-- press of its buttons (a client still showing them) is told apart from one on a preview never answered,
-- without reading the message's words.

ALTER TABLE previews ADD COLUMN answered TEXT;  -- NULL while open; then confirmed, cancelled or closed
