-- io_listings as a rowid table (rows appended) with its key as a unique index
DROP TABLE feast_lineage_io_listings;
CREATE TABLE feast_lineage_io_listings (
    job_id BIGINT NOT NULL, direction VARCHAR(6) NOT NULL, rank VARCHAR(64) NOT NULL,
    run_key VARCHAR(36) NOT NULL
);
CREATE UNIQUE INDEX ix_ol_io_listings_key ON feast_lineage_io_listings (job_id, direction, rank);
