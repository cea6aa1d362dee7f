DROP TABLE known_networks;
DROP TABLE password_guards;
