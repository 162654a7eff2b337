\ir ../../../libs/common/sql/webhook_outbox.sql
