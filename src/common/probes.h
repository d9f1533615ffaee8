/*
 * USDT (user-level statically defined tracing) probes at the pipeline's boundaries, for
 * perf, bpftrace and SystemTap: docs/profiling.md says how to list and trace them.
 *
 * Provider "segscan". Each probe is a single nop in the code plus an ELF note
 * (.note.stapsdt) naming it and its argument locations, so a probe costs nothing until a
 * tracer attaches (which turns the nop into a breakpoint). Arguments are integers, so no
 * tracer has to chase pointers into our structs:
 *
 *   segment__submitted   (seg_idx, worker)       a worker started reading a segment
 *   segment__parsed      (seg_idx, bytes_read)   its facts are in its ss_seg
 *   ring__full           (worker, stalls)        a worker had to wait for the evaluator
 *   partition__evaluated (part_idx, segments)    the evaluator finished one partition
 *   scan__start          (logdirs, threads)      segscan_run() begins
 *   scan__done           (segments, result)      segscan_run() ends
 *
 * <sys/sdt.h> comes from Debian's systemtap-sdt-dev. Without it, or with
 * -DSS_NO_PROBES, every macro expands to a no-op that never evaluates its arguments, so
 * pass only expressions without side effects (a tracer may not be attached either).
 */
#ifndef SS_COMMON_PROBES_H
#define SS_COMMON_PROBES_H

#if !defined(SS_NO_PROBES) && defined(__has_include)
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define SS_HAVE_PROBES 1
#endif
#endif

#ifdef SS_HAVE_PROBES
/* The casts give every argument a fixed width in the note (-8@ / 8@ operands), whatever
 * the caller's integer type, so tracer scripts can read arg0/arg1 as 64-bit numbers. */
#define SS_PROBE_SEGMENT_SUBMITTED(seg_idx, worker) \
	DTRACE_PROBE2(segscan, segment__submitted, (unsigned long long)(seg_idx), (unsigned long long)(worker))
#define SS_PROBE_SEGMENT_PARSED(seg_idx, bytes_read) \
	DTRACE_PROBE2(segscan, segment__parsed, (unsigned long long)(seg_idx), (long long)(bytes_read))
#define SS_PROBE_RING_FULL(worker, stalls) \
	DTRACE_PROBE2(segscan, ring__full, (unsigned long long)(worker), (unsigned long long)(stalls))
#define SS_PROBE_PARTITION_EVALUATED(part_idx, segments) \
	DTRACE_PROBE2(segscan, partition__evaluated, (unsigned long long)(part_idx), (unsigned long long)(segments))
#define SS_PROBE_SCAN_START(logdirs, threads) \
	DTRACE_PROBE2(segscan, scan__start, (unsigned long long)(logdirs), (unsigned long long)(threads))
#define SS_PROBE_SCAN_DONE(segments, result) \
	DTRACE_PROBE2(segscan, scan__done, (unsigned long long)(segments), (long long)(result))
#else
/* sizeof: the arguments count as used (no -Wunused-variable for a variable that only a
 * probe reads) but are never evaluated. */
#define SS_PROBE_NOP2(a, b) ((void)sizeof(a), (void)sizeof(b))
#define SS_PROBE_SEGMENT_SUBMITTED(seg_idx, worker)      SS_PROBE_NOP2(seg_idx, worker)
#define SS_PROBE_SEGMENT_PARSED(seg_idx, bytes_read)     SS_PROBE_NOP2(seg_idx, bytes_read)
#define SS_PROBE_RING_FULL(worker, stalls)               SS_PROBE_NOP2(worker, stalls)
#define SS_PROBE_PARTITION_EVALUATED(part_idx, segments) SS_PROBE_NOP2(part_idx, segments)
#define SS_PROBE_SCAN_START(logdirs, threads)            SS_PROBE_NOP2(logdirs, threads)
#define SS_PROBE_SCAN_DONE(segments, result)             SS_PROBE_NOP2(segments, result)
#endif

#endif /* SS_COMMON_PROBES_H */
