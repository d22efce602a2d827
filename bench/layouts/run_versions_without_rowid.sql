-- run_versions clustered by its key (SQLite WITHOUT ROWID), the indexes kept
DROP TABLE feast_lineage_run_versions;
CREATE TABLE feast_lineage_run_versions (
    run_key VARCHAR(36) NOT NULL, job_id BIGINT NOT NULL, ns_id BIGINT NOT NULL,
    version_id VARCHAR(32) NOT NULL, time_us BIGINT NOT NULL, is_run INTEGER NOT NULL,
    parts TEXT NOT NULL, PRIMARY KEY (run_key)
) WITHOUT ROWID;
CREATE INDEX ix_ol_run_versions_job_version ON feast_lineage_run_versions (job_id, version_id, time_us);
CREATE INDEX ix_ol_run_versions_job_time ON feast_lineage_run_versions (job_id, time_us);
