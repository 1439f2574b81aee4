/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keeps the IPv4 CIDR table of the XDP program (common/map_types.h,
 * DIR-16-8-8: mk_cidr4_dir, mk_cidr4_l2, mk_cidr4_l3) in step with the IPv4
 * CIDR list, so the program answers "is this address in the list?" with
 * array reads instead of LPM trie walks. The loader owns one and feeds it
 * every prefix it adds to or deletes from the trie; the tables are the
 * program's memory (its .bss and two mmap'ed arrays), or plain memory in
 * the unit tests. One thread at a time.
 */
#ifndef MK_CIDR4_DIR_H
#define MK_CIDR4_DIR_H

#include <linux/types.h>
#include "map_types.h"

#define MK_CIDR4_DIR_ENTRIES 65536u /* one per /16 */

/* Chunk indexes 1..cap: never used ones first, then freed ones once MK_CIDR4_REUSE_NS old. */
struct mk_cidr4_pool {
	__u32 cap;
	__u32 next;  /* the lowest index never handed out */
	__u32 *ids;  /* ring of freed indexes, oldest at head */
	__u64 *when; /* CLOCK_MONOTONIC ns each was freed */
	__u32 head, count;
};

/* The longer prefixes (/17 to /32) inside one /16: low 16 bits << 8 | length. */
struct mk_cidr4_vec {
	__u32 *v;
	__u32 n, cap;
};

struct mk_cidr4_dir {
	__u16 *l1;		 /* MK_CIDR4_DIR_ENTRIES entries */
	struct mk_cidr4_l2 *l2;	 /* MK_CIDR4_L2_CHUNKS + 1 chunks (index 0 unused) */
	struct mk_cidr4_l3 *l3;	 /* MK_CIDR4_L3_CHUNKS + 1 chunks */
	__u32 *short_refs;	 /* per /16: prefixes of /16 or shorter covering it */
	struct mk_cidr4_vec *in; /* per /16: its longer prefixes */
	struct mk_cidr4_pool l2_pool, l3_pool;
	__u64 (*now_ns)(void); /* the clock of the reuse delay; tests replace it */
};

/* Starts an empty table over @l1, @l2, @l3 (which it clears). */
int mk_cidr4_dir_init(struct mk_cidr4_dir *d, __u16 *l1, struct mk_cidr4_l2 *l2,
		      struct mk_cidr4_l3 *l3);
void mk_cidr4_dir_free(struct mk_cidr4_dir *d);

/*
 * Adds or deletes the prefix @addr/@len (@addr in host byte order, bits past
 * @len ignored). The caller adds a prefix once and deletes only what it
 * added (the LPM trie tells it). Returns 0 or -ENOMEM; running out of chunks
 * is not an error: the /16 or /24 is left to the trie (MK_CIDR4_TRIE).
 */
int mk_cidr4_dir_add(struct mk_cidr4_dir *d, __u32 addr, __u32 len);
int mk_cidr4_dir_del(struct mk_cidr4_dir *d, __u32 addr, __u32 len);

/*
 * What the program reads for @addr (host byte order): 1 in the list, 0 not,
 * -1 ask the trie.
 */
int mk_cidr4_dir_match(const struct mk_cidr4_dir *d, __u32 addr);

#endif /* MK_CIDR4_DIR_H */
