ALTER TABLE games DROP CONSTRAINT games_status_known;
ALTER TABLE game_seats DROP CONSTRAINT game_seats_state_known;
ALTER TABLE alliance_proposals DROP CONSTRAINT alliance_proposals_status_known;
ALTER TABLE game_actions DROP CONSTRAINT game_actions_kind_known;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_known;
ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_status_known;
