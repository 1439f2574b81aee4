// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loader of the meerkat XDP program: skeleton open/load with its read-only
 * configuration, libxdp attach/detach, and the map writes that configure a
 * loaded program (indirection table, sockets, peer, CIDR and flow bypass).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>
#include "flow_key.h"
#include "hash.h"
#include "map_types.h"
#include "meta.h"
#include "stats.h"
#include "meerkat.skel.h"
#include "cidr4_dir.h"
#include "loader.h"
#include "log.h"

void mk_loader_opts_default(struct mk_loader_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->workers = 1;
	opts->queues = 1;
	opts->mode = MK_MODE_IDS;
	opts->tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT;
	opts->l2tpv3_l2spec = MK_L2SPEC_NONE;
}

static int opts_check(const struct mk_loader_opts *o)
{
	if (!o->workers || o->workers > MK_MAX_WORKERS) {
		mk_err("workers must be 1..%d, not %u", MK_MAX_WORKERS, o->workers);
		return -EINVAL;
	}
	if (!o->queues || o->queues > MK_MAX_QUEUES) {
		mk_err("queues must be 1..%d, not %u", MK_MAX_QUEUES, o->queues);
		return -EINVAL;
	}
	if (o->mode != MK_MODE_IDS && o->mode != MK_MODE_IPS) {
		mk_err("unknown mode %u", o->mode);
		return -EINVAL;
	}
	if (o->tunnel_depth > MK_TUNNEL_DEPTH_MAX) {
		mk_err("tunnel depth must be 0..%d, not %u", MK_TUNNEL_DEPTH_MAX, o->tunnel_depth);
		return -EINVAL;
	}
	if (o->l2tpv3_cookie_len != 0 && o->l2tpv3_cookie_len != 4 && o->l2tpv3_cookie_len != 8) {
		mk_err("L2TPv3 cookie length must be 0, 4 or 8, not %u", o->l2tpv3_cookie_len);
		return -EINVAL;
	}
	if (o->l2tpv3_l2spec != MK_L2SPEC_NONE && o->l2tpv3_l2spec != MK_L2SPEC_DEFAULT) {
		mk_err("unknown L2TPv3 L2-specific sublayer %u", o->l2tpv3_l2spec);
		return -EINVAL;
	}
	if (o->tunnel_off & ~MK_TUN_ALL) {
		mk_err("unknown tunnel decoder bits 0x%x", o->tunnel_off & ~MK_TUN_ALL);
		return -EINVAL;
	}
	if (o->xsk_slots && o->xsk_slots < o->queues * o->workers) {
		mk_err("%u XSKMAP slots cannot hold %u queues x %u workers", o->xsk_slots,
		       o->queues, o->workers);
		return -EINVAL;
	}
	return 0;
}

/*
 * Maps whose state must survive a restart: the flow bypass table, its
 * counters and the flow bypass map. libbpf reuses a compatible map already
 * pinned at the path, or pins the new one there at load. Everything else is
 * rebuilt from the configuration.
 */
static int pin_maps(struct meerkat_bpf *skel, const char *dir)
{
	struct bpf_map *maps[] = { skel->maps.mk_bypass_table, skel->maps.mk_bypass_counters,
				   skel->maps.mk_flow_bypass };
	char path[PATH_MAX];
	unsigned int i;
	int err;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		mk_err("%s: %s (is a bpffs mounted there?)", dir, strerror(-err));
		return err;
	}
	for (i = 0; i < MK_ARRAY_SIZE(maps); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(maps[i]));
		err = bpf_map__set_pin_path(maps[i], path);
		if (err) {
			mk_err("%s: cannot pin map %s: %s", path, bpf_map__name(maps[i]),
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

#define BYPASS_TABLE_BYTES (MK_BYPASS_TABLE_SETS * sizeof(struct mk_bypass_set))
#define CIDR4_L2_BYTES ((MK_CIDR4_L2_CHUNKS + 1) * sizeof(struct mk_cidr4_l2))
#define CIDR4_L3_BYTES ((MK_CIDR4_L3_CHUNKS + 1) * sizeof(struct mk_cidr4_l3))

/* An mmap of a BPF_F_MMAPABLE array map, or NULL (logged). */
static void *map_mmap(struct bpf_map *map, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);

	if (p != MAP_FAILED)
		return p;
	mk_err("cannot map %s: %s", bpf_map__name(map), strerror(errno));
	return NULL;
}

/* Unmaps what mk_loader_open mapped and frees the IPv4 CIDR table's state. */
static void loader_unmap(struct mk_loader *l)
{
	if (l->cidr4)
		mk_cidr4_dir_free(l->cidr4);
	free(l->cidr4);
	if (l->bypass_table)
		munmap(l->bypass_table, BYPASS_TABLE_BYTES);
	if (l->cidr4_l2)
		munmap(l->cidr4_l2, CIDR4_L2_BYTES);
	if (l->cidr4_l3)
		munmap(l->cidr4_l3, CIDR4_L3_BYTES);
	l->cidr4 = NULL;
	l->bypass_table = NULL;
	l->cidr4_l2 = NULL;
	l->cidr4_l3 = NULL;
}

int mk_loader_open(struct mk_loader *l, const struct mk_loader_opts *opts)
{
	struct meerkat_bpf *skel;
	int err;

	memset(l, 0, sizeof(*l));
	err = opts_check(opts);
	if (err)
		return err;

	skel = meerkat_bpf__open();
	if (!skel) {
		err = -errno;
		mk_err("cannot open BPF object: %s", strerror(-err));
		return err;
	}
	skel->rodata->mk_cfg.seed = opts->seed;
	mk_hash_key_init((struct mk_hash_key *)&skel->rodata->mk_hash_key, opts->seed);
	skel->rodata->mk_cfg.tunnel_depth = opts->tunnel_depth;
	skel->rodata->mk_cfg.l2tpv3_cookie_len = opts->l2tpv3_cookie_len;
	skel->rodata->mk_cfg.l2tpv3_l2spec = opts->l2tpv3_l2spec;
	skel->rodata->mk_cfg.tunnel_off = opts->tunnel_off;
	skel->rodata->mk_cfg.vxlan_port = opts->vxlan_port;
	skel->rodata->mk_cfg.geneve_port = opts->geneve_port;
	skel->rodata->mk_cfg.parse_flags = (opts->general_only ? MK_PARSE_F_GENERAL_ONLY : 0) |
					   (opts->no_fast_tunnel ? MK_PARSE_F_NO_FAST_TUNNEL : 0);
	skel->rodata->mk_workers = opts->workers;
	skel->rodata->mk_queues = opts->queues;
	skel->rodata->mk_mode = opts->mode;
	skel->rodata->mk_ips_unparsable = opts->ips_unparsable;
	skel->rodata->mk_ips_failure = opts->ips_failure;
	skel->rodata->mk_rx_stamp = opts->rx_stamp;
	skel->rodata->mk_bench_restore = opts->bench_restore;

	if (opts->pin_dir) {
		err = pin_maps(skel, opts->pin_dir);
		if (err)
			goto err_destroy;
	}
	l->workers = opts->workers;
	l->queues = opts->queues;
	l->seed = opts->seed;
	l->xsk_slots = opts->xsk_slots ? opts->xsk_slots : opts->queues * opts->workers;
	err = bpf_map__set_max_entries(skel->maps.mk_xsks, l->xsk_slots);
	if (err) {
		mk_err("cannot size map mk_xsks to %u slots: %s", l->xsk_slots, strerror(-err));
		goto err_destroy;
	}

	err = meerkat_bpf__load(skel);
	if (err) {
		mk_err("cannot load BPF object (run with -v -v for the verifier log): %s",
		       strerror(-err));
		goto err_destroy;
	}
	l->skel = skel;
	l->bypass_table = map_mmap(skel->maps.mk_bypass_table, BYPASS_TABLE_BYTES);
	l->cidr4_l2 = map_mmap(skel->maps.mk_cidr4_l2, CIDR4_L2_BYTES);
	l->cidr4_l3 = map_mmap(skel->maps.mk_cidr4_l3, CIDR4_L3_BYTES);
	l->cidr4 = calloc(1, sizeof(*l->cidr4));
	if (!l->bypass_table || !l->cidr4_l2 || !l->cidr4_l3 || !l->cidr4) {
		err = -ENOMEM;
		goto err_close;
	}
	err = mk_cidr4_dir_init(l->cidr4, skel->data_prefilter->mk_cidr4_dir, l->cidr4_l2,
				l->cidr4_l3);
	if (err) {
		free(l->cidr4);
		l->cidr4 = NULL;
		goto err_close;
	}
	err = mk_loader_itable_reset(l);
	if (err)
		goto err_close;
	/*
	 * The CIDR tries start empty and so do their bitmaps; a pinned bypass map
	 * may hold a previous run's flows, whose bits are set before the program
	 * relies on them (until then it looks every flow up). From here on the
	 * loader keeps both.
	 */
	if (opts->pin_dir) {
		err = mk_loader_bypass_prefilter_rebuild(l);
		if (err)
			goto err_close;
	}
	skel->bss->mk_prefilter = MK_PREFILTER_BYPASS | MK_PREFILTER_CIDR;
	return 0;

err_close:
	l->skel = NULL;
	free(l->bypass_refs);
	l->bypass_refs = NULL;
	loader_unmap(l);
err_destroy:
	meerkat_bpf__destroy(skel);
	return err;
}

void mk_loader_close(struct mk_loader *l)
{
	if (l->xdp_prog)
		mk_loader_detach(l);
	loader_unmap(l);
	meerkat_bpf__destroy(l->skel);
	free(l->bypass_refs);
	free(l->cidr6_refs);
	memset(l, 0, sizeof(*l));
}

/* Bitmaps live in the mmap'ed .bss; the program reads them while we write. */
static void bit_set(__u64 *bits, __u32 i)
{
	__atomic_fetch_or(&bits[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
}

static void bit_clear(__u64 *bits, __u32 i)
{
	__atomic_fetch_and(&bits[i / 64], ~(1ull << (i % 64)), __ATOMIC_RELAXED);
}

/* The IPv6 CIDR prefilter bits a prefix covers: [*first, *first + *count), or every bit. */
static void cidr6_bits(const void *addr, __u32 prefixlen, __u32 *first, __u32 *count)
{
	__u32 w;

	memcpy(&w, addr, 4);
	/* bit = high16 ^ low16 of the first word: a /L (16 <= L < 32) covers 2^(32-L) */
	if (prefixlen < 16) {
		*first = 0;
		*count = MK_CIDR_PREFILTER_BITS;
		return;
	}
	*count = prefixlen >= 32 ? 1 : 1u << (32 - prefixlen);
	w = __builtin_bswap32(w) & ~(*count - 1);
	*first = (w ^ (w >> 16)) & 0xffff;
}

/*
 * The program's quick answer next to the tries: the IPv4 CIDR table
 * (cidr4_dir.c), the IPv6 prefilter bits.
 */
static int cidr_prefilter_update(struct mk_loader *l, int family, const void *addr, __u32 prefixlen,
				 int delta)
{
	__u64 *bits = l->skel->data_prefilter->mk_cidr6_bits;
	__u32 first, count, i, a;

	if (family == AF_INET) {
		memcpy(&a, addr, 4);
		a = __builtin_bswap32(a);
		return delta > 0 ? mk_cidr4_dir_add(l->cidr4, a, prefixlen) :
				   mk_cidr4_dir_del(l->cidr4, a, prefixlen);
	}
	if (!l->cidr6_refs) {
		l->cidr6_refs = calloc(MK_CIDR_PREFILTER_BITS, sizeof(*l->cidr6_refs));
		if (!l->cidr6_refs)
			return -ENOMEM;
	}
	cidr6_bits(addr, prefixlen, &first, &count);
	for (i = 0; i < count; i++) {
		/* covered bits differ only in their low bits, which xor with nothing else */
		__u32 b = first ^ i;

		if (delta > 0 && l->cidr6_refs[b]++ == 0)
			bit_set(bits, b);
		else if (delta < 0 && l->cidr6_refs[b] && --l->cidr6_refs[b] == 0)
			bit_clear(bits, b);
	}
	return 0;
}

int mk_loader_prog_fd(const struct mk_loader *l)
{
	return bpf_program__fd(l->skel->progs.meerkat_xdp);
}

static int map_update(struct bpf_map *map, const void *key, const void *val, __u64 flags)
{
	int err = bpf_map_update_elem(bpf_map__fd(map), key, val, flags);

	return err ? -errno : 0;
}

int mk_loader_itable_reset(struct mk_loader *l)
{
	__u32 b, w;
	int err;

	for (b = 0; b < MK_ITABLE_SIZE; b++) {
		w = b % l->workers;
		err = map_update(l->skel->maps.mk_itable, &b, &w, BPF_ANY);
		if (err) {
			mk_err("cannot fill map mk_itable bucket %u: %s", b, strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * libxdp loads the program itself when it can put it behind its dispatcher;
 * our object is already loaded, so libxdp attaches it as a single program
 * unless a dispatcher is there. Either way detach goes through libxdp too.
 * Where the kernel refuses freplace libxdp first tries its dispatcher and
 * libbpf warns about that failed load (advising a higher `ulimit -l`) before
 * libxdp falls back: the libraries are quietened for the attempt and the
 * caller reports what finally failed (-v -v shows everything).
 */
static int attach_once(struct mk_loader *l, int ifindex, enum xdp_attach_mode mode)
{
	struct xdp_program *prog;
	int err;

	prog = xdp_program__from_bpf_obj(l->skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err)
		return err;
	mk_log_libs_quiet(1);
	err = xdp_program__attach(prog, ifindex, mode, 0);
	mk_log_libs_quiet(0);
	if (err) {
		xdp_program__close(prog);
		return err;
	}
	l->xdp_prog = prog;
	l->ifindex = ifindex;
	l->attach_mode = mode;
	return 0;
}

static const char *mode_name(bool skb_mode)
{
	return skb_mode ? "generic" : "native";
}

int mk_loader_attach(struct mk_loader *l, int ifindex, bool skb_mode)
{
	char ifname[IF_NAMESIZE] = "?";
	int err;

	if (l->xdp_prog) {
		mk_err("already attached to ifindex %d", l->ifindex);
		return -EBUSY;
	}
	if_indextoname(ifindex, ifname);
	err = attach_once(l, ifindex, skb_mode ? XDP_MODE_SKB : XDP_MODE_NATIVE);
	if (err)
		mk_err("%s: cannot attach the XDP program in %s mode: %s", ifname,
		       mode_name(skb_mode), strerror(-err));
	else
		mk_info("%s: XDP program attached (%s mode)", ifname, mode_name(skb_mode));
	return err;
}

int mk_loader_detach(struct mk_loader *l)
{
	char ifname[IF_NAMESIZE] = "?";
	int err;

	if (!l->xdp_prog)
		return 0;
	if_indextoname(l->ifindex, ifname);
	if (l->raw_attach) {
		/* as it was attached: libbpf, naming our program so that no other is removed */
		LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = mk_loader_prog_fd(l));

		err = bpf_xdp_attach(l->ifindex, -1, XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE, &opts);
	} else {
		err = xdp_program__detach(l->xdp_prog, l->ifindex, l->attach_mode, 0);
	}
	if (err)
		mk_err("cannot detach from %s: %s", ifname, strerror(-err));
	/* from_bpf_obj borrowed the object: closing the handle leaves the skeleton's fds */
	xdp_program__close(l->xdp_prog);
	l->xdp_prog = NULL;
	l->ifindex = 0;
	l->raw_attach = false;
	return err;
}

void mk_loader_forget_attach(struct mk_loader *l)
{
	if (!l->xdp_prog)
		return;
	xdp_program__close(l->xdp_prog);
	l->xdp_prog = NULL;
	l->ifindex = 0;
	l->raw_attach = false;
}

int mk_loader_set_xsk(struct mk_loader *l, __u32 slot, int xsk_fd)
{
	int err;

	if (slot >= l->xsk_slots) {
		mk_err("XSKMAP slot %u out of range (%u slots)", slot, l->xsk_slots);
		return -ERANGE;
	}
	err = map_update(l->skel->maps.mk_xsks, &slot, &xsk_fd, BPF_ANY);
	if (err)
		mk_err("cannot put socket in map mk_xsks slot %u: %s", slot, strerror(-err));
	return err;
}

int mk_loader_clear_xsk(struct mk_loader *l, __u32 slot)
{
	if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.mk_xsks), &slot) && errno != ENOENT) {
		int err = -errno;

		mk_err("cannot clear map mk_xsks slot %u: %s", slot, strerror(-err));
		return err;
	}
	return 0;
}

int mk_loader_set_peer(struct mk_loader *l, int ifindex)
{
	__u32 key = 0, val = (__u32)ifindex;
	int err;

	if (!ifindex) {
		if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.mk_peer), &key) &&
		    errno != ENOENT) {
			err = -errno;
			mk_err("cannot clear map mk_peer: %s", strerror(-err));
			return err;
		}
		return 0;
	}
	err = map_update(l->skel->maps.mk_peer, &key, &val, BPF_ANY);
	if (err)
		mk_err("cannot put ifindex %d in map mk_peer: %s", ifindex, strerror(-err));
	return err;
}

int mk_loader_drop_add(struct mk_loader *l, const struct mk_flow_key *key)
{
	__u64 now = (__u64)time(NULL);
	int err = map_update(l->skel->maps.mk_flow_drop, key, &now, BPF_ANY);

	if (err) {
		mk_err("cannot put a flow in map mk_flow_drop: %s", strerror(-err));
		return err;
	}
	/* a count the program only tests for zero: the LRU map may forget entries */
	if (!l->skel->bss->mk_flow_drop_entries)
		l->skel->bss->mk_flow_drop_entries = 1;
	return 0;
}

int mk_loader_drop_del(struct mk_loader *l, const struct mk_flow_key *key)
{
	/* gone already is fine: the LRU map forgets the least recently hit flow */
	if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.mk_flow_drop), key) && errno != ENOENT) {
		int err = -errno;

		mk_err("cannot delete a flow from map mk_flow_drop: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* Builds the LPM key for (family, addr, prefixlen); returns the map and its counter. */
static int cidr_key(
	struct mk_loader *l, int family, const void *addr, __u32 prefixlen,
	union {
		struct mk_lpm_v4_key v4;
		struct mk_lpm_v6_key v6;
	} * key,
	struct bpf_map **map, __u32 **count)
{
	memset(key, 0, sizeof(*key));
	if (family == AF_INET && prefixlen <= 32) {
		key->v4.prefixlen = prefixlen;
		memcpy(key->v4.addr, addr, 4);
		*map = l->skel->maps.mk_cidr_v4;
		*count = &l->skel->bss->mk_cidr_v4_entries;
		return 0;
	}
	if (family == AF_INET6 && prefixlen <= 128) {
		key->v6.prefixlen = prefixlen;
		memcpy(key->v6.addr, addr, 16);
		*map = l->skel->maps.mk_cidr_v6;
		*count = &l->skel->bss->mk_cidr_v6_entries;
		return 0;
	}
	mk_err("bad CIDR (family %d, prefix length %u)", family, prefixlen);
	return -EINVAL;
}

/*
 * The .bss counters let the program skip the trie lookups while a list is
 * empty; they count distinct prefixes, so re-adding one does not bump them.
 */
int mk_loader_cidr_add(struct mk_loader *l, int family, const void *addr, __u32 prefixlen)
{
	union {
		struct mk_lpm_v4_key v4;
		struct mk_lpm_v6_key v6;
	} key;
	struct bpf_map *map;
	__u32 *count, one = 1;
	int err;

	err = cidr_key(l, family, addr, prefixlen, (void *)&key, &map, &count);
	if (err)
		return err;
	/*
	 * IPv6: the prefilter bit first, a frame may find the bit without the
	 * prefix, not the reverse. IPv4: the trie first, which also says whether
	 * the prefix is new, then the table that answers for it.
	 */
	if (family == AF_INET6) {
		err = cidr_prefilter_update(l, family, addr, prefixlen, +1);
		if (err)
			return err;
	}
	err = map_update(map, &key, &one, BPF_NOEXIST);
	if (err) {
		if (family == AF_INET6)
			cidr_prefilter_update(l, family, addr, prefixlen, -1);
		if (err == -EEXIST)
			return 0;
		mk_err("cannot add CIDR to map %s: %s", bpf_map__name(map), strerror(-err));
		return err;
	}
	if (family == AF_INET) {
		err = cidr_prefilter_update(l, family, addr, prefixlen, +1);
		if (err) {
			bpf_map_delete_elem(bpf_map__fd(map), &key);
			mk_err("cannot add CIDR to the IPv4 CIDR table: %s", strerror(-err));
			return err;
		}
	}
	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int mk_loader_cidr_del(struct mk_loader *l, int family, const void *addr, __u32 prefixlen)
{
	union {
		struct mk_lpm_v4_key v4;
		struct mk_lpm_v6_key v6;
	} key;
	struct bpf_map *map;
	__u32 *count;
	int err;

	err = cidr_key(l, family, addr, prefixlen, (void *)&key, &map, &count);
	if (err)
		return err;
	if (bpf_map_delete_elem(bpf_map__fd(map), &key)) {
		err = -errno;
		mk_err("cannot delete CIDR from map %s: %s", bpf_map__name(map), strerror(-err));
		return err;
	}
	__atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
	return cidr_prefilter_update(l, family, addr, prefixlen, -1);
}

static size_t percpu_value_size(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

static int bypass_refs_get(struct mk_loader *l)
{
	if (!l->bypass_refs)
		l->bypass_refs = calloc(MK_BYPASS_PREFILTER_BITS, 1);
	return l->bypass_refs ? 0 : -ENOMEM;
}

static void bypass_ref(struct mk_loader *l, __u32 hash, int delta)
{
	__u32 b = mk_bypass_bit(hash);
	__u8 *r = &l->bypass_refs[b];

	if (delta > 0) {
		if (*r < UINT8_MAX && (*r)++ == 0)
			bit_set(l->skel->data_prefilter->mk_bypass_bits, b);
	} else if (*r && *r < UINT8_MAX && --(*r) == 0) {
		bit_clear(l->skel->data_prefilter->mk_bypass_bits, b);
	}
}

/* Per-CPU values for one entry: @ncpus slots of struct mk_bypass_value, zeroed. */
static void *bypass_vals(int ncpus)
{
	return calloc(ncpus, percpu_value_size(sizeof(struct mk_bypass_value)));
}

static void bypass_sum(const void *vals, int ncpus, struct mk_bypass_value *sum)
{
	size_t vsz = percpu_value_size(sizeof(struct mk_bypass_value));
	int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < ncpus; i++) {
		const struct mk_bypass_value *v = (const void *)((const __u8 *)vals + i * vsz);

		sum->packets[0] += v->packets[0];
		sum->packets[1] += v->packets[1];
		sum->bytes[0] += v->bytes[0];
		sum->bytes[1] += v->bytes[1];
		if (v->last_seen_ns > sum->last_seen_ns)
			sum->last_seen_ns = v->last_seen_ns;
	}
}

/* The table slot holding @key (whose hash is @hash), or -ENOENT. */
static int table_find(const struct mk_loader *l, const struct mk_flow_key *key, __u32 hash)
{
	__u32 set = mk_bypass_set_of(hash), w;
	const struct mk_bypass_set *s = &l->bypass_table[set];

	for (w = 0; w < MK_BYPASS_TABLE_WAYS; w++) {
		if (__atomic_load_n(&s->way[w].tag, __ATOMIC_ACQUIRE) == mk_bypass_tag(hash) &&
		    !memcmp(&s->way[w].key, key, sizeof(*key)))
			return (int)(set * MK_BYPASS_TABLE_WAYS + w);
	}
	return -ENOENT;
}

static struct mk_bypass_way *table_way(const struct mk_loader *l, __u32 slot)
{
	return &l->bypass_table[slot / MK_BYPASS_TABLE_WAYS].way[slot % MK_BYPASS_TABLE_WAYS];
}

/* Frees a way: the tag first, so the program stops matching before the key goes. */
static void table_clear(struct mk_loader *l, __u32 slot)
{
	struct mk_bypass_way *way = table_way(l, slot);

	__atomic_store_n(&way->tag, 0, __ATOMIC_RELEASE);
	memset(&way->key, 0, sizeof(way->key));
}

/* Has the set of @hash a free way? */
static bool table_has_room(const struct mk_loader *l, __u32 hash)
{
	const struct mk_bypass_set *s = &l->bypass_table[mk_bypass_set_of(hash)];
	__u32 w;

	for (w = 0; w < MK_BYPASS_TABLE_WAYS; w++)
		if (!__atomic_load_n(&s->way[w].tag, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static int counters_write(struct mk_loader *l, __u32 slot, const void *vals)
{
	int err = map_update(l->skel->maps.mk_bypass_counters, &slot, vals, BPF_ANY);

	if (err)
		mk_err("cannot write slot %u of map mk_bypass_counters: %s", slot, strerror(-err));
	return err;
}

/*
 * Puts a flow that is in neither place into a free way of its set, counters
 * (@vals, per CPU) first and the tag last, or into the LRU map when the set
 * is full. Does not touch the prefilter.
 */
static int bypass_insert(struct mk_loader *l, const struct mk_flow_key *key, __u32 hash,
			 const void *vals)
{
	struct mk_bypass_set *s = &l->bypass_table[mk_bypass_set_of(hash)];
	__u32 w, slot;
	int err;

	for (w = 0; w < MK_BYPASS_TABLE_WAYS; w++) {
		if (__atomic_load_n(&s->way[w].tag, __ATOMIC_ACQUIRE))
			continue;
		slot = mk_bypass_set_of(hash) * MK_BYPASS_TABLE_WAYS + w;
		err = counters_write(l, slot, vals);
		if (err)
			return err;
		memcpy(&s->way[w].key, key, sizeof(*key));
		__atomic_store_n(&s->way[w].tag, mk_bypass_tag(hash), __ATOMIC_RELEASE);
		return 0;
	}
	err = map_update(l->skel->maps.mk_flow_bypass, key, vals, BPF_NOEXIST);
	if (err && err != -EEXIST)
		mk_err("cannot add flow to map mk_flow_bypass: %s", strerror(-err));
	return err;
}

int mk_loader_bypass_add(struct mk_loader *l, const struct mk_flow_key *key)
{
	int ncpus = libbpf_num_possible_cpus(), slot, err;
	__u32 hash = mk_flow_hash(key, l->seed);
	void *vals;

	if (ncpus < 0)
		return ncpus;
	err = bypass_refs_get(l);
	if (err)
		return err;
	vals = bypass_vals(ncpus);
	if (!vals)
		return -ENOMEM;
	/* a flow already there keeps its place and gets its counters reset */
	slot = table_find(l, key, hash);
	if (slot >= 0) {
		err = counters_write(l, (__u32)slot, vals);
		goto out;
	}
	err = map_update(l->skel->maps.mk_flow_bypass, key, vals, BPF_EXIST);
	if (err != -ENOENT) {
		if (err)
			mk_err("cannot reset flow in map mk_flow_bypass: %s", strerror(-err));
		goto out;
	}
	/* a new entry counts in the prefilter, its bit set before the entry exists */
	bypass_ref(l, hash, +1);
	err = bypass_insert(l, key, hash, vals);
	if (err)
		bypass_ref(l, hash, -1);
out:
	free(vals);
	return err;
}

int mk_loader_bypass_insert(struct mk_loader *l, const struct mk_flow_key *key, bool allow_map,
			    bool *in_map)
{
	int ncpus = libbpf_num_possible_cpus(), err;
	__u32 hash = mk_flow_hash(key, l->seed);
	void *vals;

	if (ncpus < 0)
		return ncpus;
	err = bypass_refs_get(l);
	if (err)
		return err;
	if (table_find(l, key, hash) >= 0)
		return -EEXIST;
	*in_map = !table_has_room(l, hash);
	if (*in_map && !allow_map)
		return -ENOSPC;
	vals = bypass_vals(ncpus);
	if (!vals)
		return -ENOMEM;
	bypass_ref(l, hash, +1);
	/* the map's BPF_NOEXIST answers -EEXIST for a flow that is there already */
	err = bypass_insert(l, key, hash, vals);
	if (err)
		bypass_ref(l, hash, -1);
	free(vals);
	return err;
}

__u32 mk_loader_bypass_table_used(const struct mk_loader *l)
{
	__u32 slot, n = 0;

	for (slot = 0; slot < MK_BYPASS_TABLE_SLOTS; slot++)
		n += __atomic_load_n(&table_way(l, slot)->tag, __ATOMIC_RELAXED) != 0;
	return n;
}

__u32 mk_loader_bypass_map_size(const struct mk_loader *l)
{
	return bpf_map__max_entries(l->skel->maps.mk_flow_bypass);
}

int mk_loader_bypass_del(struct mk_loader *l, const struct mk_flow_key *key)
{
	__u32 hash = mk_flow_hash(key, l->seed);
	int slot, err;

	err = bypass_refs_get(l);
	if (err)
		return err;
	slot = table_find(l, key, hash);
	if (slot >= 0) {
		table_clear(l, (__u32)slot);
	} else if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.mk_flow_bypass), key)) {
		err = -errno;
		mk_err("cannot delete flow from map mk_flow_bypass: %s", strerror(-err));
		return err;
	}
	bypass_ref(l, hash, -1);
	return 0;
}

/* A table entry the rebuild moves: its key, old slot and counters. */
struct bypass_move {
	struct mk_flow_key key;
	__u32 slot;
	void *vals;
};

/*
 * Moves the table entries that are not where this seed puts them (a pinned
 * table from a run with another seed): all are taken out first, so they can
 * take each other's ways, then put back with their counters.
 */
static int table_migrate(struct mk_loader *l, int ncpus)
{
	int fd = bpf_map__fd(l->skel->maps.mk_bypass_counters);
	struct bypass_move *mv = NULL;
	__u32 slot, n = 0, i;
	int err = 0;

	for (slot = 0; slot < MK_BYPASS_TABLE_SLOTS; slot++) {
		const struct mk_bypass_way *way = table_way(l, slot);
		__u32 hash;

		if (!way->tag)
			continue;
		hash = mk_flow_hash(&way->key, l->seed);
		if (way->tag == mk_bypass_tag(hash) &&
		    mk_bypass_set_of(hash) == slot / MK_BYPASS_TABLE_WAYS)
			continue;
		if (!mv) {
			mv = calloc(MK_BYPASS_TABLE_SLOTS, sizeof(*mv));
			if (!mv)
				return -ENOMEM;
		}
		mv[n].key = way->key;
		mv[n].slot = slot;
		mv[n].vals = bypass_vals(ncpus);
		if (!mv[n].vals) {
			err = -ENOMEM;
			goto out;
		}
		n++;
		if (bpf_map_lookup_elem(fd, &slot, mv[n - 1].vals)) {
			err = -errno;
			mk_err("cannot read slot %u of map mk_bypass_counters: %s", slot,
			       strerror(-err));
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		table_clear(l, mv[i].slot);
	for (i = 0; i < n && !err; i++)
		err = bypass_insert(l, &mv[i].key, mk_flow_hash(&mv[i].key, l->seed), mv[i].vals);
	if (n)
		mk_info("bypass table: %u flows moved to their sets under this seed", n);
out:
	for (i = 0; i < n; i++)
		free(mv[i].vals);
	free(mv);
	return err;
}

int mk_loader_bypass_prefilter_rebuild(struct mk_loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.mk_flow_bypass), ncpus = libbpf_num_possible_cpus();
	struct mk_flow_key key, next;
	__u64 *bits = l->skel->data_prefilter->mk_bypass_bits;
	__u32 i, slot;
	int err;

	if (ncpus < 0)
		return ncpus;
	err = bypass_refs_get(l);
	if (!err)
		err = table_migrate(l, ncpus);
	if (err)
		return err;
	memset(l->bypass_refs, 0, MK_BYPASS_PREFILTER_BITS);
	for (slot = 0; slot < MK_BYPASS_TABLE_SLOTS; slot++) {
		const struct mk_bypass_way *way = table_way(l, slot);
		__u8 *r;

		if (!way->tag)
			continue;
		r = &l->bypass_refs[mk_bypass_bit(mk_flow_hash(&way->key, l->seed))];
		if (*r < UINT8_MAX)
			(*r)++;
	}
	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		__u8 *r = &l->bypass_refs[mk_bypass_bit(mk_flow_hash(&next, l->seed))];

		if (*r < UINT8_MAX)
			(*r)++;
		key = next;
	}
	if (errno != ENOENT) {
		err = -errno;
		mk_err("cannot walk map mk_flow_bypass: %s", strerror(-err));
		return err;
	}
	/* set what is needed before clearing what is not: no entry loses its bit meanwhile */
	for (i = 0; i < MK_BYPASS_PREFILTER_BITS; i++) {
		if (l->bypass_refs[i])
			bit_set(bits, i);
	}
	for (i = 0; i < MK_BYPASS_PREFILTER_BITS; i++) {
		if (!l->bypass_refs[i] && (bits[i / 64] >> (i % 64) & 1))
			bit_clear(bits, i);
	}
	return 0;
}

int mk_loader_bypass_read(struct mk_loader *l, const struct mk_flow_key *key,
			  struct mk_bypass_value *sum)
{
	int ncpus = libbpf_num_possible_cpus(), slot, err = 0;
	void *vals;

	if (ncpus < 0)
		return ncpus;
	vals = bypass_vals(ncpus);
	if (!vals)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	slot = table_find(l, key, mk_flow_hash(key, l->seed));
	if (slot >= 0) {
		__u32 k = (__u32)slot;

		if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.mk_bypass_counters), &k, vals)) {
			err = -errno;
			mk_err("cannot read slot %u of map mk_bypass_counters: %s", k,
			       strerror(-err));
		}
	} else if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.mk_flow_bypass), key, vals)) {
		err = -errno; /* -ENOENT is an answer, not a failure: the caller logs */
	}
	if (!err)
		bypass_sum(vals, ncpus, sum);
	free(vals);
	return err;
}

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's, not in the libc headers */
#endif
#define WALK_BATCH 256

/*
 * The LRU map in batches (BPF_MAP_LOOKUP_BATCH: one syscall per
 * WALK_BATCH entries instead of two per entry). -EINVAL or -ENOTSUPP before
 * the first entry: the kernel has no batch lookups for this map.
 */
static int map_walk_batch(int fd, int ncpus,
			  int (*fn)(const struct mk_flow_key *key,
				    const struct mk_bypass_value *sum, void *ctx),
			  void *ctx)
{
	size_t vsz = percpu_value_size(sizeof(struct mk_bypass_value)) * (size_t)ncpus;
	struct mk_flow_key *keys = calloc(WALK_BATCH, sizeof(*keys));
	__u8 *vals = calloc(WALK_BATCH, vsz);
	struct mk_flow_key token; /* opaque to us: the kernel keeps its bucket there */
	struct mk_bypass_value sum;
	bool first = true, last = false;
	int err = 0;
	__u32 n, i;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (!last && !err) {
		n = WALK_BATCH;
		if (bpf_map_lookup_batch(fd, first ? NULL : &token, &token, keys, vals, &n, NULL)) {
			err = -errno;
			if (err != -ENOENT)
				break; /* -EINVAL / -ENOTSUPP on the first call: the caller falls back */
			err = 0;
			last = true;
		}
		first = false;
		for (i = 0; i < n && !err; i++) {
			bypass_sum(vals + i * vsz, ncpus, &sum);
			err = fn(&keys[i], &sum, ctx);
		}
	}
out:
	free(keys);
	free(vals);
	return err;
}

int mk_loader_bypass_walk(struct mk_loader *l,
			  int (*fn)(const struct mk_flow_key *key,
				    const struct mk_bypass_value *sum, void *ctx),
			  void *ctx)
{
	int cfd = bpf_map__fd(l->skel->maps.mk_bypass_counters);
	int mfd = bpf_map__fd(l->skel->maps.mk_flow_bypass);
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	struct mk_flow_key key, next;
	struct mk_bypass_value sum;
	bool first = true;
	__u32 slot;
	void *vals;

	if (ncpus < 0)
		return ncpus;
	vals = bypass_vals(ncpus);
	if (!vals)
		return -ENOMEM;
	for (slot = 0; slot < MK_BYPASS_TABLE_SLOTS && !err; slot++) {
		const struct mk_bypass_way *way = table_way(l, slot);

		if (!__atomic_load_n(&way->tag, __ATOMIC_ACQUIRE))
			continue;
		key = way->key;
		if (bpf_map_lookup_elem(cfd, &slot, vals)) {
			err = -errno;
			mk_err("cannot read slot %u of map mk_bypass_counters: %s", slot,
			       strerror(-err));
			break;
		}
		bypass_sum(vals, ncpus, &sum);
		err = fn(&key, &sum, ctx);
	}
	if (!err) {
		err = map_walk_batch(mfd, ncpus, fn, ctx);
		if (err != -EINVAL && err != -EOPNOTSUPP && err != -ENOTSUPP)
			goto out;
		err = 0; /* a kernel without batch lookups on this map: one entry at a time */
	}
	/* the map: an entry deleted under the walk ends it early, as get_next_key does */
	while (!err && !bpf_map_get_next_key(mfd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(mfd, &key, vals))
			continue; /* evicted or deleted meanwhile */
		bypass_sum(vals, ncpus, &sum);
		err = fn(&key, &sum, ctx);
	}
out:
	free(vals);
	return err;
}

int mk_loader_stats_read(struct mk_loader *l, __u64 *out)
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 keys[MK_STAT_SLOTS], count = MK_STAT_SLOTS, batch;
	__u64 *vals;
	__u32 k;
	int err = 0, i;

	if (ncpus < 0)
		return ncpus;
	vals = calloc((size_t)ncpus * MK_STAT_SLOTS, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	/* one syscall for every slot on every CPU; the tests read after each frame */
	if (!bpf_map_lookup_batch(bpf_map__fd(l->skel->maps.mk_stats), NULL, &batch, keys, vals,
				  &count, NULL) ||
	    (errno == ENOENT && count >= MK_STAT_MAX)) {
		for (k = 0; k < MK_STAT_MAX; k++) {
			out[k] = 0;
			for (i = 0; i < ncpus; i++)
				out[k] += vals[(size_t)k * ncpus + i];
		}
		mk_stat_derive(out);
		goto out;
	}
	for (k = 0; k < MK_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.mk_stats), &k, vals)) {
			err = -errno;
			mk_err("cannot read map mk_stats slot %u: %s", k, strerror(-err));
			break;
		}
		out[k] = 0;
		for (i = 0; i < ncpus; i++)
			out[k] += vals[i];
	}
	if (!err)
		mk_stat_derive(out);
out:
	free(vals);
	return err;
}

#define XSK_SET_FRAMES 64 /* per socket; nothing is ever received into them */

int mk_xsk_set_create(struct mk_xsk_set *set, struct mk_loader *l, const char *ifname, __u32 queue)
{
	struct xsk_socket_config xcfg = {
		.rx_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	__u32 w;
	int err;

	memset(set, 0, sizeof(*set));
	if (queue >= l->queues) {
		mk_err("queue %u out of range (%u queues)", queue, l->queues);
		return -ERANGE;
	}
	set->umem_size = (size_t)XSK_SET_FRAMES * l->workers * XSK_UMEM__DEFAULT_FRAME_SIZE;
	set->umem_area = mmap(NULL, set->umem_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (set->umem_area == MAP_FAILED) {
		err = -errno;
		set->umem_area = NULL;
		mk_err("cannot map UMEM for %s: %s", ifname, strerror(-err));
		return err;
	}
	err = xsk_umem__create(&set->umem, set->umem_area, set->umem_size, &set->fill, &set->comp,
			       NULL);
	if (err) {
		mk_err("cannot create UMEM on %s: %s", ifname, strerror(-err));
		goto err_out;
	}
	for (w = 0; w < l->workers; w++) {
		err = xsk_socket__create_shared(&set->xsks[w], ifname, queue, set->umem,
						&set->rx[w], NULL, &set->fill, &set->comp, &xcfg);
		if (err) {
			mk_err("cannot create AF_XDP socket %u on %s queue %u: %s", w, ifname,
			       queue, strerror(-err));
			goto err_out;
		}
		set->count++;
		err = mk_loader_set_xsk(l, queue * l->workers + w, xsk_socket__fd(set->xsks[w]));
		if (err)
			goto err_out;
	}
	return 0;

err_out:
	mk_xsk_set_destroy(set);
	return err;
}

void mk_xsk_set_destroy(struct mk_xsk_set *set)
{
	unsigned int i;

	/* a closed socket leaves its XSKMAP slot by itself */
	for (i = 0; i < set->count; i++)
		xsk_socket__delete(set->xsks[i]);
	if (set->umem)
		xsk_umem__delete(set->umem);
	if (set->umem_area)
		munmap(set->umem_area, set->umem_size);
	memset(set, 0, sizeof(*set));
}

__u32 mk_loader_prog_id(const struct mk_loader *l)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (!l->skel || bpf_obj_get_info_by_fd(mk_loader_prog_fd(l), &info, &len))
		return 0;
	return info.id;
}

const char *mk_loader_attach_mode_name(const struct mk_loader *l)
{
	if (!l->xdp_prog)
		return "none";
	return l->attach_mode == XDP_MODE_SKB ? "generic" : "native";
}

/* Detaches every meerkat_xdp linked into libxdp's dispatcher on @ifindex. */
static int detach_stale_dispatched(int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	int err = libxdp_get_error(mp), n = 0;

	if (err)
		return err == -ENOENT ? 0 : err;
	if (!mp)
		return 0;
	for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp)) {
		if (strcmp(xdp_program__name(p), "meerkat_xdp"))
			continue;
		err = xdp_program__detach(p, ifindex, xdp_multiprog__attach_mode(mp), 0);
		if (err) {
			n = err;
			break;
		}
		n++;
	}
	xdp_multiprog__close(mp);
	return n;
}

/*
 * A meerkat program attached directly (single-program mode) is found and
 * detached with libbpf alone: libxdp 1.3's xdp_multiprog__get_from_ifindex()
 * keeps a duplicate of the program's fd open, which would hold the stale
 * program (and its maps) in memory for as long as this daemon runs. The
 * detach names the stale program (XDP_FLAGS_REPLACE), so a program attached
 * meanwhile by someone else is never removed. Behind a dispatcher libxdp
 * does the work. Returns 1 when one was detached, 0 when none, or -errno.
 */
static int detach_stale_one(int ifindex, __u32 id, __u32 mode_flag)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd, err;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* gone meanwhile */
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	if (!strcmp(info.name, "xdp_dispatcher")) {
		err = detach_stale_dispatched(ifindex);
		goto out;
	}
	err = 0;
	/* meerkat's own, or the fail-open forwarder a stop left (capture/ips.h) */
	if (strcmp(info.name, "meerkat_xdp") && strcmp(info.name, "meerkat_fwd"))
		goto out;
	opts.old_prog_fd = fd;
	err = bpf_xdp_attach(ifindex, -1, mode_flag | XDP_FLAGS_REPLACE, &opts);
	err = err ? err : 1;
out:
	close(fd);
	return err;
}

int mk_loader_detach_stale(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err, n = 0;

	err = bpf_xdp_query(ifindex, 0, &q);
	if (err)
		return err;
	if (q.drv_prog_id) {
		err = detach_stale_one(ifindex, q.drv_prog_id, XDP_FLAGS_DRV_MODE);
		if (err < 0)
			return err;
		n += err;
	}
	if (q.skb_prog_id) {
		err = detach_stale_one(ifindex, q.skb_prog_id, XDP_FLAGS_SKB_MODE);
		if (err < 0)
			return err;
		n += err;
	}
	return n;
}

/*
 * Names the program that keeps us off the interface in single-program mode.
 * Returns 1 when it said so (one error line), 0 when it found nothing to name.
 */
static int explain_busy(int ifindex, const char *ifname)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	int said = 0;

	if (libxdp_get_error(mp) || !mp)
		return 0;
	p = xdp_multiprog__main_prog(mp);
	if (xdp_multiprog__is_legacy(mp) && p) {
		mk_err("%s already runs XDP program '%s' (id %u) and libxdp's dispatcher is not "
		       "available to run both: detach it first (xdp-loader unload %s --all)",
		       ifname, xdp_program__name(p), xdp_program__id(p), ifname);
		said = 1;
	}
	xdp_multiprog__close(mp);
	return said;
}

/*
 * Inline mode's restart: the fail-open forwarder (or a killed meerkat's
 * program) attached natively without a dispatcher is replaced by ours in
 * one step (XDP_FLAGS_REPLACE naming it), so that the link never runs
 * without a program. 1 when done, 0 when there was nothing to replace that
 * way (the caller detaches and attaches), or -errno.
 */
static int replace_stale_native(struct mk_loader *l, int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct xdp_program *prog;
	int fd, err;

	if (bpf_xdp_query(ifindex, 0, &q) || !q.drv_prog_id || q.attach_mode != XDP_ATTACHED_DRV)
		return 0;
	fd = bpf_prog_get_fd_by_id(q.drv_prog_id);
	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (err || (strcmp(info.name, "meerkat_fwd") && strcmp(info.name, "meerkat_xdp"))) {
		close(fd);
		return 0;
	}
	prog = xdp_program__from_bpf_obj(l->skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err) {
		close(fd);
		return err;
	}
	opts.old_prog_fd = fd;
	err = bpf_xdp_attach(ifindex, mk_loader_prog_fd(l), XDP_FLAGS_DRV_MODE | XDP_FLAGS_REPLACE,
			     &opts);
	close(fd);
	if (err) {
		xdp_program__close(prog);
		return 0; /* changed meanwhile: the caller's way */
	}
	l->xdp_prog = prog;
	l->ifindex = ifindex;
	l->attach_mode = XDP_MODE_NATIVE;
	l->raw_attach = true;
	return 1;
}

int mk_loader_attach_live(struct mk_loader *l, int ifindex, bool skb_mode, bool fallback_generic)
{
	char ifname[IF_NAMESIZE] = "?";
	const char *hint = "";
	int err, n;

	if (l->xdp_prog) {
		mk_err("already attached to ifindex %d", l->ifindex);
		return -EBUSY;
	}
	if_indextoname(ifindex, ifname);
	if (!skb_mode && replace_stale_native(l, ifindex) == 1) {
		mk_warn("%s: replaced the meerkat program a previous run left attached (in one step)",
			ifname);
		return 0;
	}
	n = mk_loader_detach_stale(ifindex);
	if (n < 0) {
		mk_err("%s: cannot detach the meerkat program a previous run left: %s", ifname,
		       strerror(-n));
		return n;
	}
	if (n)
		mk_warn("%s: replaced the meerkat program a previous run left attached", ifname);
	err = attach_once(l, ifindex, skb_mode ? XDP_MODE_SKB : XDP_MODE_NATIVE);
	if (err && !skb_mode && fallback_generic && err != -EEXIST && err != -EBUSY) {
		mk_warn("%s: native XDP refused (%s), attaching in generic mode (slower)", ifname,
			strerror(-err));
		skb_mode = true;
		err = attach_once(l, ifindex, XDP_MODE_SKB);
	}
	if (!err) {
		mk_info("%s: XDP program attached (%s mode)", ifname, mode_name(skb_mode));
		return 0;
	}
	if ((err == -EEXIST || err == -EBUSY) && explain_busy(ifindex, ifname))
		return err;
	if (err == -EOPNOTSUPP && !skb_mode)
		hint = " (no native XDP in this driver: capture.attach-mode auto or generic)";
	mk_err("%s: cannot attach the XDP program in %s mode: %s%s", ifname, mode_name(skb_mode),
	       strerror(-err), hint);
	return err;
}
