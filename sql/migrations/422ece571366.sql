-- Revision 422ece571366: consumer types (microversion 1.38). PostgreSQL
-- and MySQL add the column and its foreign key in place.

CREATE TABLE consumer_types (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    name VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_consumer_types0name UNIQUE (name)
);
ALTER TABLE consumers ADD COLUMN consumer_type_id INTEGER;
ALTER TABLE consumers ADD CONSTRAINT consumers_consumer_type_id_fkey
    FOREIGN KEY (consumer_type_id) REFERENCES consumer_types (id);
CREATE INDEX consumers_consumer_type_id_idx ON consumers (consumer_type_id);
