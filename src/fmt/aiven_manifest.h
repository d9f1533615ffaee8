/*
 * The segment manifest of Aiven's tiered-storage-for-apache-kafka: the JSON object
 * "<prefix><topic>-<topicId>/<partition>/<offset 20d>-<segmentId>.rsm-manifest" the RSM
 * writes after a segment's .log and .indexes, and reads before either (its chunk index
 * maps the original file's bytes to the stored, transformed ones). Pure: no I/O.
 *
 * Schema (Aiven-Open/tiered-storage-for-apache-kafka, core/src/main/java/io/aiven/kafka/
 * tieredstorage/manifest/: SegmentManifest @JsonTypeInfo(property="version") name "1",
 * SegmentManifestV1, SegmentIndexesV1, SegmentIndexV1, index/ChunkIndex
 * @JsonTypeInfo(property="type") "fixed" | "variable", index/FixedSizeChunkIndex,
 * index/VariableSizeChunkIndex, index/serde/TransformedChunks{Serializer,Deserializer},
 * index/serde/ChunkSizesBinaryCodec):
 *   { "version": "1",
 *     "chunkIndex": { "type": "fixed", "originalChunkSize": C, "originalFileSize": F,
 *                     "transformedChunkSize": T, "finalTransformedChunkSize": L }
 *                 | { "type": "variable", "originalChunkSize": C, "originalFileSize": F,
 *                     "transformedChunks": base64(zstd(ChunkSizesBinaryCodec(sizes))) },
 *     "segmentIndexes": { "offset"|"timestamp"|"producerSnapshot"|"leaderEpoch":
 *                         {"position": P, "size": S}, "transaction": {...} | null },
 *     "compression": bool, "encryption": { "dataKey": ..., "aad": ... } (absent: none),
 *     "remoteLogSegmentMetadata": { ... } (written, never read back by the RSM) }
 * Fixed chunks (no compression; encryption only): n = ceil(F / C) chunks, n-1 of T
 * transformed bytes and a last one of L. Variable (compression on): the sizes themselves,
 * ChunkSizesBinaryCodec being count (u32), then for count 1 the value, else base (u32),
 * bytes per value (u8, 1..4), count-1 values (big-endian, minus base) and the last value
 * in full (u32); the decompressed encoding is at most 10 MiB (the deserializer's bound).
 */
#ifndef SS_FMT_AIVEN_MANIFEST_H
#define SS_FMT_AIVEN_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The deserializer's own bound on the decompressed chunk sizes (MAX_DECOMPRESSED_SIZE). */
#define SS_AIVEN_CHUNKS_MAX ((size_t)10 << 20)

struct ss_aiven_manifest {
	bool    fixed;            /* chunkIndex.type "fixed" (else "variable") */
	int64_t original_chunk;   /* originalChunkSize */
	int64_t original_size;    /* originalFileSize: the segment file's own size */
	uint64_t chunks;          /* chunk count */
	int64_t stored_log_size;  /* the .log object's bytes the chunk index implies */
	int64_t indexes_size;     /* the .indexes object's bytes: the end of the last range */
	bool    compression;
	bool    encryption;       /* an "encryption" object is present */
	/* remoteLogSegmentMetadata, when the manifest has it */
	bool    has_segment;
	uint8_t segment_id[16];
	uint8_t topic_id[16];
	int32_t partition;
	int64_t start_offset, end_offset;
};

/*
 * Parse a manifest of len bytes. Returns 0, SEGSCAN_EJSON (malformed JSON, a missing or
 * mistyped required field, an unknown version or chunk index type, a negative or
 * out-of-range size, a transformedChunks that is not base64 of a zstd frame of a valid
 * ChunkSizesBinaryCodec encoding), or -ENOMEM; err (may be NULL) says what.
 */
int ss_aiven_manifest_parse(const char *buf, size_t len, struct ss_aiven_manifest *out, char *err, size_t errlen);

#endif
