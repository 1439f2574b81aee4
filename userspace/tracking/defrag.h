/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * IPv4 and IPv6 fragment reassembly, one instance per worker thread
 * (shared-nothing: no locks, no globals). A worker feeds every fragment it
 * receives; when a datagram is complete it gets one contiguous raw IP packet
 * that mk_parse_frame(MK_START_IP) accepts, and hands it to the worker that
 * owns its 5-tuple (DESIGN 1.2, userspace/util/spsc.h). See docs/defrag.md.
 *
 * Time is the packet timestamp, never the wall clock: offline mode replays
 * pcaps at any speed.
 */
#ifndef MK_DEFRAG_H
#define MK_DEFRAG_H

#include <stdio.h>
#include <linux/types.h>

/*
 * Which copy of a byte wins when fragments overlap. "existing" is the
 * fragment that currently holds the byte, "new" the one arriving now.
 */
enum mk_defrag_policy {
	MK_DEFRAG_POLICY_BSD = 0, /* new wins iff it starts strictly before existing */
	MK_DEFRAG_POLICY_FIRST,	  /* existing always wins (HP-UX 11, macOS) */
	MK_DEFRAG_POLICY_LAST,	  /* new always wins (Cisco IOS "last") */
	MK_DEFRAG_POLICY_REJECT,  /* any overlap but an exact duplicate drops the datagram:
				   * RFC 5722, Linux >= 4.19 */
	MK_DEFRAG_POLICY_MAX,
};

struct mk_defrag_config {
	__u64 timeout_ns;   /* datagram lifetime from its first fragment */
	__u64 memcap;	    /* bytes of buffered fragment data, whole instance */
	__u32 max_trackers; /* datagrams in progress at once (preallocated) */
	__u32 max_frags;    /* fragments accepted per datagram, duplicates included */
	__u32 max_datagram; /* IPv4 total length / IPv6 payload length limit */
	__u32 seed;	    /* tracker hash seed: pick at random, like the flow seed */
	enum mk_defrag_policy policy;
};

#define MK_DEFRAG_DEFAULT_TIMEOUT_NS (60ull * 1000000000ull)
#define MK_DEFRAG_DEFAULT_MEMCAP (16ull << 20)
#define MK_DEFRAG_DEFAULT_MAX_TRACKERS 1024
#define MK_DEFRAG_DEFAULT_MAX_FRAGS 128
#define MK_DEFRAG_DEFAULT_MAX_DATAGRAM 65535

/*
 * Counters. Every fragment offered ends in exactly one of: held in a
 * tracker, frags_malformed, frags_not_fragment, or dropped together with its
 * datagram (one dg_* abandon counter per datagram). Change the list here
 * and the names follow.
 */
/* clang-format off */
#define MK_DEFRAG_STATS(X)                                                                         \
	X(frags_in)	       /* fragments offered to mk_defrag_input */                         \
	X(frags_v4)                                                                                \
	X(frags_v6)                                                                                \
	X(frags_not_fragment)  /* not a fragment at all: caller error */                          \
	X(frags_malformed)     /* truncated or unreadable header: dropped alone */                \
	X(frags_overlap)       /* overlapped data already buffered (duplicates too) */            \
	X(dg_reassembled)      /* datagrams delivered */                                          \
	X(dg_overlap_mismatch) /* delivered, but overlapping copies disagreed */                  \
	X(dg_timeout)	       /* abandoned: timeout_ns passed */                                 \
	X(dg_memcap)	       /* abandoned: memcap reached (oldest evicted) */                   \
	X(dg_evicted)	       /* abandoned: all trackers busy, oldest evicted */                 \
	X(dg_too_many_frags)   /* abandoned: more than max_frags fragments */                     \
	X(dg_oversize)	       /* abandoned: would exceed max_datagram (attack) */                \
	X(dg_invalid)	       /* abandoned: bad length, end conflict, data past the end */       \
	X(dg_overlap)	       /* abandoned: overlap under the reject policy */                   \
	X(dg_nomem)	       /* abandoned: malloc failed */                                     \
	X(dg_flushed)	       /* abandoned: instance destroyed while pending */
/* clang-format on */

struct mk_defrag_stats {
#define MK_DEFRAG_STAT_FIELD(name) __u64 name;
	MK_DEFRAG_STATS(MK_DEFRAG_STAT_FIELD)
#undef MK_DEFRAG_STAT_FIELD
	/* gauges, not counters */
	__u64 mem_used;
	__u64 mem_peak; /* the most mem_used ever was (summed over workers: an upper bound) */
	__u64 trackers_used;
};

/* A reassembled datagram: raw IP, owned by the caller, released with mk_defrag_datagram_free. */
struct mk_defrag_datagram {
	__u8 *data;
	__u32 len;
	__u32 nfrags; /* fragments that went into it, duplicates included */
	__u64 ts_ns;  /* timestamp of the fragment that completed it */
};

/* Outer context that belongs to the datagram identity (struct mk_parse). */
struct mk_defrag_outer {
	__u16 vlan[2];
	__u32 tunnel_ctx;
};

enum mk_defrag_result {
	MK_DEFRAG_HELD = 0, /* fragment buffered, datagram not complete yet */
	MK_DEFRAG_DONE = 1, /* *out holds the complete datagram */
};

struct mk_defrag;

void mk_defrag_config_default(struct mk_defrag_config *cfg);
/* The `defrag:` keys (config/cfg_keys.h). */
struct mk_cfg_table;
extern const struct mk_cfg_table mk_defrag_cfg_table;
/* 0 or -EINVAL (bad config) / -ENOMEM; all trackers are preallocated here. */
int mk_defrag_create(const struct mk_defrag_config *cfg, struct mk_defrag **out);
/* Frees everything; pending datagrams count as dg_flushed first (see mk_defrag_stats). */
void mk_defrag_destroy(struct mk_defrag *d);

/*
 * Offers one fragment: @ip points at its IPv4 or IPv6 header, @len is the
 * captured length from there (trailing padding is ignored). @outer may be
 * NULL (untagged, no tunnel).
 * Returns MK_DEFRAG_HELD, MK_DEFRAG_DONE (then *out is filled), or a
 * negative errno when the fragment was dropped; each drop is counted:
 *   -EINVAL    malformed fragment, or its datagram was abandoned as invalid
 *   -EEXIST    datagram abandoned: overlap under MK_DEFRAG_POLICY_REJECT
 *   -ENOTSUP   not a fragment (no MF/offset, no IPv6 fragment header)
 *   -EMSGSIZE  datagram abandoned as oversize
 *   -E2BIG     datagram abandoned: too many fragments
 *   -ENOBUFS   memcap reached and nothing older to evict
 *   -ENOMEM    allocation failed
 */
int mk_defrag_input(struct mk_defrag *d, const void *ip, __u32 len, __u64 ts_ns,
		    const struct mk_defrag_outer *outer, struct mk_defrag_datagram *out);

/* Abandons datagrams older than timeout_ns at @now_ns; returns how many. Call when idle. */
__u32 mk_defrag_expire(struct mk_defrag *d, __u64 now_ns);

void mk_defrag_datagram_free(struct mk_defrag_datagram *dg);

/* Copies the counters and gauges of @d into @st. */
void mk_defrag_get_stats(const struct mk_defrag *d, struct mk_defrag_stats *st);
/* Adds the counters and gauges of @src to @dst: sums over workers. */
void mk_defrag_stats_add(struct mk_defrag_stats *dst, const struct mk_defrag_stats *src);
/* Calls @fn for every counter and gauge, in declaration order, with its name. */
void mk_defrag_stats_foreach(const struct mk_defrag_stats *st,
			     void (*fn)(const char *name, __u64 value, void *arg), void *arg);
/* One "defrag.<name> <value>" line per counter. */
void mk_defrag_stats_print(const struct mk_defrag_stats *st, FILE *f);

const char *mk_defrag_policy_name(enum mk_defrag_policy p);
/* "bsd", "first", "last", "reject" -> policy; 0 or -EINVAL. */
int mk_defrag_policy_parse(const char *name, enum mk_defrag_policy *p);

#endif /* MK_DEFRAG_H */
