CREATE OR REPLACE FUNCTION organizations_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('organization_changed', OLD.id::text);
  RETURN NULL;
END $$;
