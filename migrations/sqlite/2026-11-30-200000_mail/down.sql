DROP TABLE email_opt_outs;
DROP TABLE mail_fanout;
DROP TABLE mail_messages;
