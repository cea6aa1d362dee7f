DROP TABLE server_secrets;
DROP TABLE personal_access_tokens;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
DROP TABLE users;
