/*
 * A partition's evaluation as the outputs print it: its effective config with each value's
 * source, its replica assignment, retention, findings and the numbers of docs/contract.md.
 * The evaluator (src/eval/) fills these, the results view (model/results.h) carries them
 * and the writers (src/out/) read them; they sit here, on the model's floor, so that an
 * output sees only the model and never the evaluator's inputs or functions (eval/eval.h).
 */
#ifndef SS_MODEL_EVALUATION_H
#define SS_MODEL_EVALUATION_H

#include <stdbool.h>
#include <stdint.h>

/* Effective topic config (eval/config.h resolves topic line > '*' > server.properties >
 * Kafka defaults). remote_storage: -1 = nobody said, 0 = false, 1 = true. */
struct ss_topic_cfg {
	int64_t retention_ms;          /* default 604800000 */
	int64_t retention_bytes;       /* default -1 */
	int64_t local_retention_ms;    /* default -2 = use retention_ms */
	int64_t local_retention_bytes; /* default -2 = use retention_bytes */
	int64_t segment_bytes;         /* default 1073741824 */
	int     remote_storage;
	/* Zero means Kafka's default (false) or "unknown", so a cfg built with designated
	 * initialisers stays valid. ss_config_resolve() sets all three. */
	int     remote_copy_disable;   /* remote.log.copy.disable: 1 = true */
	int     compact;               /* cleanup.policy contains compact: never tiered */
	int     no_delete;             /* cleanup.policy is known and lacks delete (compact alone,
					  or Kafka 4.2's empty list): UnifiedLog.deleteOldSegments
					  applies no retention.ms/retention.bytes then (0: it has
					  delete, or it is unknown and Kafka's default, delete) */
	int     remote_system_enable;  /* remote.log.storage.system.enable from
					  server.properties: 0 unknown (no file), 1 true,
					  -1 false (the broker tiers nothing) */
	bool    policy_known;          /* cleanup.policy comes from a source that says it (a
					  --topic-config line, the metadata log, server.properties),
					  not from Kafka's default alone with the dynamic configs
					  unknown */
	bool    preallocate;           /* preallocate / log.preallocate */
	/* Each reported key as Kafka's DescribeConfigs prints it (eval/config.h). */
	struct ss_cfg_entry {
		const char *key;       /* "retention.ms", ... (static) */
		char        value[40]; /* DescribeConfigs' text: "604800000", "true", "compact,delete" */
		const char *source;    /* "DYNAMIC_TOPIC_CONFIG", ..., "TOPIC_CONFIG_FILE"; NULL:
					  only Kafka's default was found while the levels that could
					  override it were not read (no metadata log) */
	} entries[9];
	uint32_t n_entries;
	/* bit i: entries[i]'s value may not be the one in force: the metadata log was not read
	 * whole and lost what could have set or changed it (its source is then NULL). What
	 * depends on such a value is unknown, never predicted from it (eval/config.c sets it). */
	uint32_t value_unsure;
	/* bit i: entries[i] has no known value (json null): Kafka sets it when it creates this
	 * internal topic from the creating broker's config (__remote_log_metadata's retention.ms)
	 * and no source read gives the topic's own; what depends on it is unknown. */
	uint32_t value_unknown;
};

/* A partition's replica assignment as the metadata log has it. The arrays point into the
 * scan's cluster image and live as long as the scan. */
struct ss_assignment {
	const int32_t *replicas, *isr;
	uint32_t       n_replicas, n_isr;
	int32_t        leader, leader_epoch;
};

struct ss_retention {
	bool        evaluated;
	bool        unknown;            /* !evaluated because an input is unknown ("unseeded", a
					   segment that could not be read), not because the check
					   does not apply ("no limit", the cleanup policy): what it
					   would delete is unknown, and so is retention.total */
	const char *reason;             /* static string; set whenever !evaluated */
	int64_t     limit;              /* bytes (size) or ms (time); -1 when not applicable */
	int64_t     total_bytes;        /* size only */
	uint32_t    n_delete;
	int64_t     delete_bytes;
	bool        has_new_log_start;
	int64_t     new_log_start_offset;
	bool        delete_is_remote;   /* delete_ids (remote ids) vs delete_offsets (local bases) */
	char      **delete_ids;         /* n_delete, owned */
	int64_t    *delete_offsets;     /* n_delete, owned */
};

struct ss_finding {
	const char *code;               /* fixed finding codes of the contract */
	const char *ref;                /* "KAFKA-20977", ... or "" */
	char       *message;            /* owned unless message_shared; names offsets, files,
					   segment ids */
	bool        has_amount;
	bool        message_shared;     /* message belongs to the scan (identical messages of
					   many partitions are held once: scan/evaluator.c) */
	int64_t     segments;
	int64_t     bytes;
	char      **segment_ids;        /* owned; n_ids may be 0 */
	uint32_t    n_ids;
	char      **object_keys;        /* owned: remote-store keys it names (model/audit.h); n_keys may be 0 */
	uint32_t    n_keys;
};

struct ss_eval {
	int64_t  log_start_offset;
	int64_t  log_end_offset;
	int64_t  size_bytes;
	bool     size_unknown;          /* a live segment's size could not be read: size_bytes is a floor */
	int      remote_storage;        /* -1 null, 0, 1 as reported: the effective
					   remote.storage.enable; without a config that says, what
					   Kafka's rules or the remote metadata settle (tiered_reason),
					   -1 when nothing does: then only_local is null too */
	bool     tiered;                /* evaluated as a tiered partition */

	/* remote */
	bool        remote_unknown;     /* remote_segments, remote_bytes, dangling_* and lost_* are
					   unknown (json null, table '?'): tiered and no source gives
					   its remote state (remote_state_unknown), tiering unknown
					   (remote_storage -1), or a corrupt metadata batch concerns it */
	bool        seeded;
	int64_t     highest_offset;     /* valid when seeded */
	const char *source;             /* "remote-state" | "metadata-topic" | "seed" | NULL */
	int64_t     remote_segments, remote_bytes;
	int64_t     dangling_segments, dangling_bytes;

	bool     only_local_null;       /* tiered but unseeded; tiering unknown (remote_storage
					   -1); or an only-local segment whose size is unknown */
	int64_t  only_local_segments, only_local_bytes;
	bool     copy_lag_null;
	int64_t  copy_lag_segments, copy_lag_bytes;
	bool     broker_copy_lag_null;  /* non-tiered topics */
	int64_t  broker_copy_lag_segments, broker_copy_lag_bytes;

	/* delete_lag (issue 27, eval/dellag.c): what the leader's remote expiration task would
	 * count in RemoteDeleteLagSegments/Bytes if it ran now; null (why says why) where
	 * unknown or not this row's: not tiered, no such gauge in the release, a follower's
	 * replica, remote state or retention unknown */
	bool        delete_lag_null;
	bool        delete_lag_unknown; /* null for want of an input, not "does not apply here" */
	const char *delete_lag_why;     /* static */
	int64_t     delete_lag_segments, delete_lag_bytes;
	/* segments that reached DELETE_SEGMENT_FINISHED within SS_DELLAG_SLACK_MS before now:
	 * a gauge read in that time may still have counted them (PHANTOM_DELETE_LAG's margin) */
	int64_t     delete_lag_recent_segments, delete_lag_recent_bytes;

	struct ss_retention size, time, local;
	/* retention.total: the distinct segments size, time and local retention delete
	 * together. Each walk is a prefix of one list (the finished remote segments by
	 * start offset, or the live local segments), so the union of the walks over one
	 * list is the longest of them: the arrays point into that kind's own (not owned). */
	struct ss_retention_total {
		bool                  unknown;    /* a kind is unknown: the union is too */
		const char           *reason;     /* that kind's reason, when unknown */
		uint32_t              n_remote, n_local;
		char *const          *remote_ids; /* n_remote (into size/time's delete_ids) */
		const int64_t        *local_offsets; /* n_local (into a kind's delete_offsets) */
		int64_t               remote_bytes, local_bytes;
	} total;

	/* --horizon (eval/health.h): what time, size and local retention and the copy task act
	 * on between now and now + horizon_ms, with no write in between */
	struct ss_forecast {
		bool        evaluated;  /* --horizon given */
		bool        unknown;    /* an input is unknown: the counts are null */
		const char *reason;     /* why unknown (static) */
		int64_t     horizon_ms;
		int64_t     local_delete_segments, local_delete_bytes;
		int64_t     remote_delete_segments, remote_delete_bytes;
		int64_t     copy_segments;
		bool        disable_tiering; /* the what-if of --disable-tiering for this topic */
	} forecast;

	struct ss_finding *findings;
	uint32_t           n_findings, cap_findings;   /* common/darray.h */

	/* additions (not in the contract's field list; writers may print them as extras) */
	const char *tiered_reason;      /* static: why the partition is (not) evaluated as tiered */
	int64_t     local_limit_ms;     /* effective local retention limits used (-1 = none) */
	int64_t     local_limit_bytes;
	int64_t     lost_segments, lost_bytes;  /* KAFKA-20932 (also in findings) */
	/* cluster context */
	bool        remote_state_unknown;   /* REMOTE_STATE_UNKNOWN: tiered, no source gives remote state */
	const struct ss_cfg_entry *config;  /* the effective configs with their sources (output):
					       in->cfg's entries, which must outlive this (the
					       scan shares one resolved config per topic) */
	uint32_t    n_config;
	uint32_t    config_value_unknown; /* bit i: config[i]'s value is not known and not what
					     segscan evaluates with (remote.storage.enable without
					     a metadata log): printed as null, not Kafka's default */
	bool        has_assignment;         /* the metadata log assigns this partition */
	struct ss_assignment assignment;    /* valid with has_assignment */
	int         here;                   /* -1 unknown (no node id), 0, 1 */
	/* The replica's role (issue 22): LEADER its node is the partition's leader
	 * (assignment.leader == node id), FOLLOWER another node leads, UNKNOWN (zero: a
	 * hand-built evaluation is unknown, never a follower) no metadata log, no assignment,
	 * no node id, or no leader in the metadata. Only the leader copies to remote storage,
	 * reports RemoteCopyLag* and runs the remote expiration: on a follower copy_lag and
	 * broker_copy_lag are null (a note says why) and PHANTOM_COPY_LAG and
	 * UNSEEDED_SIZE_RETENTION are not raised. */
	enum ss_role { SS_ROLE_UNKNOWN = 0, SS_ROLE_LEADER, SS_ROLE_FOLLOWER } role;
	bool        stray;                  /* STRAY_PARTITION raised */
	char      **notes;              /* owned: facts an operator should know that are not
					   findings (how highest_offset was derived, a remote
					   partition deletion in progress, ...) */
	uint32_t    n_notes, cap_notes;
	/* --remote-store (model/audit.h; set by eval/audit.c's ss_audit_attach after the
	 * evaluation): the partition's audit, NULL when it was not compared (remote_store_why
	 * says why) */
	const struct ss_audit_part *remote_store;
	const char *remote_store_why;
};

/*
 * One broker's delete lag for one topic (issue 27, KAFKA-21098; eval/dellag.h): what its
 * RemoteDeleteLagSegments/Bytes gauges report (broker_delete_lag, --broker-metrics) beside
 * the true delete lag summed over the topic's partitions it leads, and PHANTOM_DELETE_LAG when
 * the gauge reports more. Kafka publishes the gauge per (broker, topic) only, so this is a
 * per-topic fact, never copied onto a partition's row: a fleet sum over rows would count it
 * once per partition.
 */
struct ss_topic_dellag {
	const char *topic;              /* the scan's */
	int32_t     node_id;            /* the broker the gauges are of; -1 the scan's only one */
	/* broker_delete_lag: both gauges present (else null) */
	bool        broker_known;
	int64_t     broker_segments, broker_bytes;
	/* delete_lag over the partitions it leads (null: why says why) */
	bool        known;
	const char *why;                /* static: why it is null, or (known) why the gauges were
					   not compared with it */
	int64_t     segments, bytes;
	uint32_t    led;                /* partitions of the topic it leads (the metadata log) */
	struct ss_finding *findings;    /* PHANTOM_DELETE_LAG (0 or 1), owned */
	uint32_t    n_findings;
};

#endif
