/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place that opens, configures, loads, attaches and detaches the
 * meerkat XDP program (xdp/meerkat.bpf.c), and the only code besides the
 * bypass module that writes its maps. Lifecycle, as libbpf-bootstrap:
 * mk_loader_open() (open skeleton, set rodata, size the XSKMAP, load, fill
 * the indirection table) -> mk_loader_attach() (libxdp) -> ... ->
 * mk_loader_close() (detach if attached, release every fd). Nothing is pinned.
 *
 * Every int function returns 0 or -errno and has already logged what failed,
 * naming the object or interface.
 */
#ifndef MK_LOADER_H
#define MK_LOADER_H

#include <stdbool.h>
#include <linux/types.h>
#include "flow_key.h"
#include "map_types.h"
#include "stats.h"
#include <xdp/xsk.h>

struct meerkat_bpf;
struct xdp_program;
struct mk_cidr4_dir;

struct mk_loader_opts {
	__u32 seed;		/* hash seed; callers pick a random one for live capture */
	__u32 workers;		/* 1..MK_MAX_WORKERS */
	__u32 queues;		/* NIC queues the program serves, 1..MK_MAX_QUEUES */
	__u32 mode;		/* enum mk_mode */
	__u32 ips_unparsable;	/* IPS: enum mk_ips_policy for frames the parser refuses */
	__u32 ips_failure;	/* IPS: enum mk_ips_policy while no socket is bound (crash) */
	__u8 tunnel_depth;	/* 0..MK_TUNNEL_DEPTH_MAX */
	__u8 l2tpv3_cookie_len; /* 0, 4 or 8 */
	__u8 l2tpv3_l2spec;	/* enum mk_l2tpv3_l2spec */
	__u16 tunnel_off;	/* enum mk_tunnel_kind bits of the decoders turned off */
	__u16 vxlan_port;	/* 0 = MK_VXLAN_PORT_DEFAULT */
	__u16 geneve_port;	/* 0 = MK_GENEVE_PORT_DEFAULT */
	bool rx_stamp;		/* stamp redirected frames with their arrival time (mk_rx_stamp) */
	bool bench_restore;	/* benchmarks only: the program undoes its rewrite */
	bool general_only;	/* tests only: no fast path (MK_PARSE_F_GENERAL_ONLY) */
	bool no_fast_tunnel;	/* tests only: no fast tunnel level (MK_PARSE_F_NO_FAST_TUNNEL) */
	__u32 xsk_slots;	/* XSKMAP size; 0 = queues * workers */
	const char *pin_dir;	/* bpffs directory: pin (or reuse) the flow bypass maps there */
};

/* Defaults: 1 worker, 1 queue, IDS, default tunnel depth, no cookie, seed 0. */
void mk_loader_opts_default(struct mk_loader_opts *opts);

struct mk_loader {
	struct meerkat_bpf *skel;
	struct xdp_program *xdp_prog; /* set while attached */
	int ifindex;		      /* attached interface, 0 = none */
	int attach_mode;	      /* enum xdp_attach_mode used to attach */
	bool raw_attach; /* attached by libbpf in another program's place (not libxdp) */
	__u32 workers;
	__u32 queues;
	__u32 xsk_slots;
	__u32 seed;
	/*
	 * How many map entries stand behind each prefilter bit (common/map_types.h):
	 * a bit is cleared when its last entry goes. Allocated on first use.
	 */
	__u8 *bypass_refs; /* saturates at 255: such a bit stays until a rebuild */
	__u32 *cidr6_refs;
	struct mk_bypass_set *bypass_table; /* mk_bypass_table, mmap'ed */
	struct mk_cidr4_dir *cidr4;	    /* the IPv4 CIDR table's user-space state */
	struct mk_cidr4_l2 *cidr4_l2;	    /* mk_cidr4_l2, mk_cidr4_l3, mmap'ed */
	struct mk_cidr4_l3 *cidr4_l3;
};

int mk_loader_open(struct mk_loader *l, const struct mk_loader_opts *opts);
/* Detaches (if attached) and releases everything; safe on a zeroed or closed loader. */
void mk_loader_close(struct mk_loader *l);

/* skb_mode: generic XDP instead of the driver hook. */
int mk_loader_attach(struct mk_loader *l, int ifindex, bool skb_mode);
int mk_loader_detach(struct mk_loader *l);
/*
 * The program was replaced on its interface by someone else's attach (the
 * fail-open forwarder, capture/ips.h): forget the attachment without
 * detaching anything.
 */
void mk_loader_forget_attach(struct mk_loader *l);

int mk_loader_prog_fd(const struct mk_loader *l);
/* The kernel's id of the loaded program (what xdp-loader status shows), 0 if unknown. */
__u32 mk_loader_prog_id(const struct mk_loader *l);

/*
 * Live attach: detaches a meerkat program a previous run left on @ifindex
 * (kill -9), then attaches natively; with @fallback_generic a refused native
 * attach is retried in generic mode with a warning. Other XDP users are left
 * alone: with libxdp's dispatcher meerkat runs beside them, without it
 * (single-program mode) another program on the interface is an error naming
 * it. Returns 0 or -errno (logged).
 */
int mk_loader_attach_live(struct mk_loader *l, int ifindex, bool skb_mode, bool fallback_generic);
/* "native", "generic" or "none". */
const char *mk_loader_attach_mode_name(const struct mk_loader *l);
/* Detaches every program named meerkat_xdp from @ifindex; returns how many, or -errno. */
int mk_loader_detach_stale(int ifindex);

/* Fills the indirection table round-robin: bucket b -> b % workers. */
int mk_loader_itable_reset(struct mk_loader *l);
int mk_loader_set_xsk(struct mk_loader *l, __u32 slot, int xsk_fd);
int mk_loader_clear_xsk(struct mk_loader *l, __u32 slot);
/* IPS peer (DEVMAP slot 0); ifindex 0 removes it. */
int mk_loader_set_peer(struct mk_loader *l, int ifindex);

/*
 * IPS: the flow's frames are dropped in the driver from now on (a drop
 * verdict). The LRU map forgets the least recently hit flow when full.
 */
int mk_loader_drop_add(struct mk_loader *l, const struct mk_flow_key *key);
/* The blocked flow ended: its frames reach the program's other checks again. 0 or -errno. */
int mk_loader_drop_del(struct mk_loader *l, const struct mk_flow_key *key);

/* CIDR bypass; family is AF_INET or AF_INET6, addr in network byte order. */
int mk_loader_cidr_add(struct mk_loader *l, int family, const void *addr, __u32 prefixlen);
int mk_loader_cidr_del(struct mk_loader *l, int family, const void *addr, __u32 prefixlen);

/*
 * Flow bypass: key is canonical (struct mk_parse.key). A flow goes into the
 * bypass table (common/map_types.h) when its set has a free way, else into
 * the LRU map mk_flow_bypass; re-adding one resets its counters. Both keep
 * the prefilter bitmap in step (set on insert, cleared with the last entry
 * of its bit); the bypass module's expiry deletes through
 * mk_loader_bypass_del too. One thread at a time (the bypass module's).
 */
int mk_loader_bypass_add(struct mk_loader *l, const struct mk_flow_key *key);
int mk_loader_bypass_del(struct mk_loader *l, const struct mk_flow_key *key);
/*
 * The bypass manager's insert: like mk_loader_bypass_add but never touches a
 * flow that is there already (-EEXIST: its counters stay). *@in_map says the
 * flow's set was full and it went (or, -ENOSPC without @allow_map, would
 * have gone) to the LRU map, whose inserts may evict another flow.
 */
int mk_loader_bypass_insert(struct mk_loader *l, const struct mk_flow_key *key, bool allow_map,
			    bool *in_map);
/* Ways of the bypass table that hold a flow (a scan of the mmap'ed table). */
__u32 mk_loader_bypass_table_used(const struct mk_loader *l);
/* Entries the LRU map holds at most. */
__u32 mk_loader_bypass_map_size(const struct mk_loader *l);
/*
 * Recomputes the bypass prefilter from the table and the map: entries the
 * LRU evicted leave bits set (each costs the program one lookup per frame of
 * a flow that maps to it) until this runs. Table entries placed under
 * another seed (a pinned table from the previous run) move to their set
 * under this one, counters and all, or into the map when it is full. Call it
 * from the thread that owns the bypass maps, e.g. after an expiry walk.
 */
int mk_loader_bypass_prefilter_rebuild(struct mk_loader *l);
/* Sums the per-CPU value: packets and bytes added, last_seen_ns the latest. */
int mk_loader_bypass_read(struct mk_loader *l, const struct mk_flow_key *key,
			  struct mk_bypass_value *sum);
/*
 * Calls @fn for every bypassed flow, table and map, with its summed
 * counters (the expiry walk): the table through its mmap and one lookup per
 * used slot, the map in batches (one entry at a time on a kernel without
 * batch lookups). Stops at the first nonzero return, and returns it. @fn
 * must not delete entries: collect them, delete after the walk.
 */
int mk_loader_bypass_walk(struct mk_loader *l,
			  int (*fn)(const struct mk_flow_key *key,
				    const struct mk_bypass_value *sum, void *ctx),
			  void *ctx);

/* Sums the per-CPU counters into out[MK_STAT_MAX]. */
int mk_loader_stats_read(struct mk_loader *l, __u64 *out);

/*
 * AF_XDP sockets that only occupy XSKMAP slots: one UMEM on (ifname, queue)
 * shared by one copy-mode socket per worker, bound without loading libxdp's
 * default program. Used where a socket must be present for the program to
 * decapsulate and redirect but nothing is read from it (BPF_PROG_RUN).
 */
struct mk_xsk_set {
	/* libxdp keeps pointers to the rings: they live as long as the sockets */
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx[MK_MAX_WORKERS];
	struct xsk_umem *umem;
	void *umem_area;
	size_t umem_size;
	unsigned int count;
	struct xsk_socket *xsks[MK_MAX_WORKERS];
};

/* Creates l->workers sockets on (ifname, queue) and puts them in slots queue * W + w. */
int mk_xsk_set_create(struct mk_xsk_set *set, struct mk_loader *l, const char *ifname, __u32 queue);
void mk_xsk_set_destroy(struct mk_xsk_set *set);

#endif /* MK_LOADER_H */
