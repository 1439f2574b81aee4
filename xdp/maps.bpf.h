/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every map of the meerkat XDP program, in BTF syntax. Keys and values are
 * defined in common/map_types.h and common/stats.h; user space finds the maps
 * through the generated skeleton (or by name when xdp-loader loaded us).
 */
#ifndef MK_MAPS_BPF_H
#define MK_MAPS_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "flow_key.h"
#include "map_types.h"
#include "stats.h"

/* Per-CPU counters indexed by enum mk_stat. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MK_STAT_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} mk_stats SEC(".maps");

/* CIDR bypass lists; the value is unused (1). */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct mk_lpm_v4_key);
	__type(value, __u32);
} mk_cidr_v4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct mk_lpm_v6_key);
	__type(value, __u32);
} mk_cidr_v6 SEC(".maps");

/* The IPv4 CIDR table's second and third levels (common/map_types.h), mmap'ed by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MK_CIDR4_L2_CHUNKS + 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct mk_cidr4_l2);
} mk_cidr4_l2 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MK_CIDR4_L3_CHUNKS + 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct mk_cidr4_l3);
} mk_cidr4_l3 SEC(".maps");

/*
 * Flows whose packets no longer need inspection, one entry per flow
 * (canonical key): the table first (common/map_types.h), mmap'ed by the
 * loader, with its per-CPU counters by slot...
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MK_BYPASS_TABLE_SETS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct mk_bypass_set);
} mk_bypass_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MK_BYPASS_TABLE_SLOTS);
	__type(key, __u32);
	__type(value, struct mk_bypass_value);
} mk_bypass_counters SEC(".maps");

/* ... and the flows whose set was full. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct mk_flow_key);
	__type(value, struct mk_bypass_value);
} mk_flow_bypass SEC(".maps");

/*
 * IPS: flows a drop or reject verdict blocked; their frames are dropped here
 * (the value is the verdict's CLOCK_MONOTONIC time, for user space).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MK_FLOW_DROP_ENTRIES);
	__type(key, struct mk_flow_key);
	__type(value, __u64);
} mk_flow_drop SEC(".maps");

/* Software indirection table: bucket (hash % 256) -> worker. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MK_ITABLE_SIZE);
	__type(key, __u32);
	__type(value, __u32);
} mk_itable SEC(".maps");

/* AF_XDP sockets, slot queue * workers + worker; resized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, MK_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} mk_xsks SEC(".maps");

/* IPS peer interface, slot 0. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} mk_peer SEC(".maps");

#endif /* MK_MAPS_BPF_H */
