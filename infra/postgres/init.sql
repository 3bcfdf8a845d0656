-- Runs once, when the postgres container starts with an empty data volume
-- (docker-entrypoint-initdb.d). Each service owns its own database.
-- To re-run it: docker compose down -v (drops the volume and its data).
CREATE DATABASE bursar_control;
CREATE DATABASE bursar_ledger;
