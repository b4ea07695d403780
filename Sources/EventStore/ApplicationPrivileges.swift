import Postgres

/// What the role the application connects as may do: append events and read them, and keep the projections that
/// appends write (with the upserts of the bindings and the reports' summary tables), and call the reports' functions.
/// Nothing that could change or remove an event: no `UPDATE`, `DELETE` or `TRUNCATE` on the log,
/// and, since the role owns nothing, no `ALTER TABLE` to switch its triggers off either. Setting
/// `session_replication_role`, which would skip them, takes a superuser. On the API's tokens: reading them, making and
/// revoking them (`geoledger token`), and noting when each was last used.
public enum ApplicationPrivileges {
    /// Sets the role's privileges on the log and the projections to exactly these, revoking any others it was
    /// given on them. Run by their owner, after the migrations.
    public static func grant(to role: String, on connection: Connection) throws {
        let role = quotedIdentifier(role)
        try connection.transaction { transaction in
            try transaction.execute("""
                REVOKE ALL ON events, schema_migrations, api_tokens FROM \(role);
                REVOKE ALL ON ALL TABLES IN SCHEMA projections FROM \(role);
                GRANT SELECT, INSERT ON events TO \(role);
                GRANT USAGE ON SCHEMA projections TO \(role);
                GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA projections TO \(role);
                GRANT UPDATE ON projections.terminals, projections.latest_fixes, projections.daily_events, projections.fix_days,
                    projections.accuracy_buckets, projections.checkpoint TO \(role);
                GRANT SELECT, INSERT, DELETE ON api_tokens TO \(role);
                GRANT UPDATE (last_used_at) ON api_tokens TO \(role);
                GRANT EXECUTE ON FUNCTION report_region_mismatch, report_accuracy, report_providers,
                    report_terminal_drift, report_visit_distance, report_outside_region, report_stale, report_daily,
                    report_fix_counts, report_fix_stats, report_day_of, report_day_after TO \(role);
                """)
        }
    }
}
