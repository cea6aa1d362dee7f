DROP TABLE game_events;
DROP TABLE alliance_proposals;
DROP TABLE game_actions;
DROP TABLE game_seats;
DROP TABLE games;
