/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Live capture settings: which interfaces, how many queues and workers, the
 * AF_XDP rings and UMEM, zero-copy, busy polling, the XDP attach mode, map
 * pinning, and the daemon's periodic stats and control socket. The
 * configuration file's `capture:` section fills this struct (the key table is
 * capture_cfg.c, docs/configuration.md lists the keys) and command-line
 * options override it (-i, --workers); capture/ and runmode/live.c read it.
 */
#ifndef MK_CAPTURE_CFG_H
#define MK_CAPTURE_CFG_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include "map_types.h"

#define MK_MAX_IFACES 4
#define MK_MAX_READER_THREADS 16 /* offline: capture.reader-threads */
/*
 * How long a worker may hold a frame that another of its rings could still
 * precede (docs/architecture.md, "Arrival order"): the time from the
 * program's stamp to the frame showing in its ring, one NAPI poll.
 */
#define MK_REORDER_WINDOW_US_DEFAULT 50
#define MK_REORDER_WINDOW_US_MAX 10000

enum mk_xdp_attach {
	MK_XDP_ATTACH_AUTO = 0, /* native; generic with a warning if the driver refuses */
	MK_XDP_ATTACH_NATIVE,	/* native only: fail if refused */
	MK_XDP_ATTACH_GENERIC,	/* generic (skb) mode */
};

enum mk_zero_copy {
	MK_ZC_AUTO = 0, /* try zero-copy, fall back to copy mode with one log line */
	MK_ZC_ON,	/* zero-copy or fail */
	MK_ZC_OFF,	/* copy mode */
};

struct mk_iface_cfg {
	char name[IF_NAMESIZE];
	uint32_t queues; /* queues served, from 0; 0 = all the interface's RX/combined channels */
	char peer[IF_NAMESIZE]; /* IPS: the interface its frames leave by ("" = none) */
};

struct mk_capture_cfg {
	struct mk_iface_cfg ifaces[MK_MAX_IFACES];
	unsigned int n_ifaces;
	uint32_t workers;	      /* worker threads; 0 = one per online CPU */
	int16_t cpus[MK_MAX_WORKERS]; /* worker w pinned to cpus[w % ncpus]; none = not pinned */
	unsigned int ncpus;
	uint32_t frame_size;	    /* UMEM frame: 2048 or 4096 */
	uint32_t frame_count;	    /* UMEM frames per queue (shared by its W sockets) */
	uint32_t rx_size;	    /* RX ring entries per socket */
	uint32_t fill_size;	    /* fill ring entries per queue */
	uint32_t comp_size;	    /* completion ring entries per queue */
	uint32_t batch;		    /* descriptors per receive batch */
	uint32_t reorder_window_us; /* longest a worker holds a frame for arrival order; 0 = no merge */
	uint8_t attach;		    /* enum mk_xdp_attach */
	uint8_t zero_copy;	    /* enum mk_zero_copy */
	uint8_t busy_poll;	    /* SO_PREFER_BUSY_POLL + SO_BUSY_POLL */
	uint8_t ips;		    /* IPS: inline between interface pairs (docs/bypass.md) */
	uint8_t ips_unparsable;	    /* IPS: enum mk_ips_policy for frames nobody can inspect */
	uint8_t ips_failure;	    /* IPS: enum mk_ips_policy while meerkat is not running */
	uint32_t busy_poll_usecs;  /* SO_BUSY_POLL */
	uint32_t busy_poll_budget; /* SO_BUSY_POLL_BUDGET */
	uint32_t stats_interval;   /* seconds between EVE stats events; 0 = none. Not a
					 * capture: key: the file's `stats: enabled, interval`
					 * (struct mk_output_cfg) sets it */
	char pin_dir[256];	   /* bpffs directory for pinned maps ("" = no pinning) */
	char ctl_socket[108];	   /* control socket path ("" = none) */
	uint32_t reader_threads;   /* offline: threads of the pcap reader; 0 = chosen per run */
};

static inline void mk_capture_cfg_defaults(struct mk_capture_cfg *c)
{
	*c = (struct mk_capture_cfg){
		.workers = 0,
		.frame_size = 4096,
		.frame_count = 4096,
		.rx_size = 2048,
		.fill_size = 4096,
		.comp_size = 2048,
		.batch = 64,
		.reorder_window_us = MK_REORDER_WINDOW_US_DEFAULT,
		.attach = MK_XDP_ATTACH_AUTO,
		.zero_copy = MK_ZC_AUTO,
		.busy_poll_usecs = 20,
		.busy_poll_budget = 64,
		.stats_interval = 10,
		.ctl_socket = "/run/meerkat/meerkat.sock", /* MK_CTL_DEFAULT_SOCKET */
	};
}

struct mk_cfg_table;
extern const struct mk_cfg_table mk_capture_cfg_table;

/*
 * -i IFACE (repeatable): @names replace the interface list; an interface the
 * file listed keeps its queues. IN:OUT names an inline pair (both
 * interfaces, each the other's peer). 0, or -EINVAL with the reason in @msg.
 */
int mk_capture_cfg_set_ifaces(struct mk_capture_cfg *c, const char *const *names, unsigned int n,
			      char *msg, size_t len);

#endif /* MK_CAPTURE_CFG_H */
