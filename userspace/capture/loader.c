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
		mk_err("tunnel depth must be 0..%d, not %u", MK_TUNNEL_DEPTH_MAX,
		       o->tunnel_depth);
		return -EINVAL;
	}
	if (o->l2tpv3_cookie_len != 0 && o->l2tpv3_cookie_len != 4 && o->l2tpv3_cookie_len != 8) {
		mk_err("L2TPv3 cookie length must be 0, 4 or 8, not %u",
		       o->l2tpv3_cookie_len);
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
 * Maps whose state must survive a restart: the flow bypass map. libbpf
 * reuses a compatible map already pinned at the path, or pins the new one
 * there at load. Everything else is rebuilt from the configuration.
 */
static int pin_maps(struct meerkat_bpf *skel, const char *dir)
{
	char path[PATH_MAX];
	int err;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		mk_err("%s: %s (is a bpffs mounted there?)", dir, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/mk_flow_bypass", dir);
	err = bpf_map__set_pin_path(skel->maps.mk_flow_bypass, path);
	if (err)
		mk_err("%s: cannot pin map mk_flow_bypass: %s", path, strerror(-err));
	return err;
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
	skel->rodata->mk_cfg.tunnel_depth = opts->tunnel_depth;
	skel->rodata->mk_cfg.l2tpv3_cookie_len = opts->l2tpv3_cookie_len;
	skel->rodata->mk_cfg.l2tpv3_l2spec = opts->l2tpv3_l2spec;
	skel->rodata->mk_cfg.tunnel_off = opts->tunnel_off;
	skel->rodata->mk_cfg.vxlan_port = opts->vxlan_port;
	skel->rodata->mk_cfg.geneve_port = opts->geneve_port;
	skel->rodata->mk_cfg.parse_flags = opts->general_only ? MK_PARSE_F_GENERAL_ONLY : 0;
	skel->rodata->mk_workers = opts->workers;
	skel->rodata->mk_queues = opts->queues;
	skel->rodata->mk_mode = opts->mode;
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
		mk_err("cannot size map mk_xsks to %u slots: %s", l->xsk_slots,
		       strerror(-err));
		goto err_destroy;
	}

	err = meerkat_bpf__load(skel);
	if (err) {
		mk_err("cannot load BPF object (run with -v -v for the verifier log): %s",
		       strerror(-err));
		goto err_destroy;
	}
	l->skel = skel;
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
err_destroy:
	meerkat_bpf__destroy(skel);
	return err;
}

void mk_loader_close(struct mk_loader *l)
{
	if (l->xdp_prog)
		mk_loader_detach(l);
	meerkat_bpf__destroy(l->skel);
	free(l->bypass_refs);
	free(l->cidr4_refs);
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

/* The CIDR prefilter bits a prefix covers: [*first, *first + *count), or every bit. */
static void cidr_bits(int family, const void *addr, __u32 prefixlen, __u32 *first, __u32 *count)
{
	__u32 w;

	memcpy(&w, addr, 4);
	if (family == AF_INET) {
		/* bit = top 16 bits: a /L below 16 covers 2^(16-L) consecutive bits */
		*first = mk_cidr4_bit(w);
		*count = prefixlen >= 16 ? 1 : 1u << (16 - prefixlen);
		*first &= ~(*count - 1);
		return;
	}
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

static int cidr_prefilter_update(struct mk_loader *l, int family, const void *addr,
				 __u32 prefixlen, int delta)
{
	__u32 **refs = family == AF_INET ? &l->cidr4_refs : &l->cidr6_refs;
	__u64 *bits = family == AF_INET ? l->skel->bss->mk_cidr4_bits : l->skel->bss->mk_cidr6_bits;
	__u32 first, count, i;

	if (!*refs) {
		*refs = calloc(MK_CIDR_PREFILTER_BITS, sizeof(**refs));
		if (!*refs)
			return -ENOMEM;
	}
	cidr_bits(family, addr, prefixlen, &first, &count);
	for (i = 0; i < count; i++) {
		/* covered bits differ only in their low bits, which xor with nothing else */
		__u32 b = first ^ i;

		if (delta > 0 && (*refs)[b]++ == 0)
			bit_set(bits, b);
		else if (delta < 0 && (*refs)[b] && --(*refs)[b] == 0)
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
			mk_err("cannot fill map mk_itable bucket %u: %s", b,
			       strerror(-err));
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
	err = xdp_program__detach(l->xdp_prog, l->ifindex, l->attach_mode, 0);
	if (err)
		mk_err("cannot detach from %s: %s", ifname, strerror(-err));
	/* from_bpf_obj borrowed the object: closing the handle leaves the skeleton's fds */
	xdp_program__close(l->xdp_prog);
	l->xdp_prog = NULL;
	l->ifindex = 0;
	return err;
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
		mk_err("cannot put socket in map mk_xsks slot %u: %s", slot,
		       strerror(-err));
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
		mk_err("cannot put ifindex %d in map mk_peer: %s", ifindex,
		       strerror(-err));
	return err;
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
	/* the prefilter bit first: a frame may find the bit without the prefix, not the reverse */
	err = cidr_prefilter_update(l, family, addr, prefixlen, +1);
	if (err)
		return err;
	err = map_update(map, &key, &one, BPF_NOEXIST);
	if (err) {
		cidr_prefilter_update(l, family, addr, prefixlen, -1);
		if (err == -EEXIST)
			return 0;
		mk_err("cannot add CIDR to map %s: %s", bpf_map__name(map),
		       strerror(-err));
		return err;
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
		mk_err("cannot delete CIDR from map %s: %s", bpf_map__name(map),
		       strerror(-err));
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

static void bypass_ref(struct mk_loader *l, const struct mk_flow_key *key, int delta)
{
	__u32 b = mk_bypass_bit(mk_flow_hash(key, l->seed));
	__u8 *r = &l->bypass_refs[b];

	if (delta > 0) {
		if (*r < UINT8_MAX && (*r)++ == 0)
			bit_set(l->skel->bss->mk_bypass_bits, b);
	} else if (*r && *r < UINT8_MAX && --(*r) == 0) {
		bit_clear(l->skel->bss->mk_bypass_bits, b);
	}
}

int mk_loader_bypass_add(struct mk_loader *l, const struct mk_flow_key *key)
{
	int ncpus = libbpf_num_possible_cpus();
	void *vals;
	int err;

	if (ncpus < 0)
		return ncpus;
	err = bypass_refs_get(l);
	if (err)
		return err;
	vals = calloc(ncpus, percpu_value_size(sizeof(struct mk_bypass_value)));
	if (!vals)
		return -ENOMEM;
	/* a new entry counts in the prefilter; re-adding one resets its counters only */
	bypass_ref(l, key, +1);
	err = map_update(l->skel->maps.mk_flow_bypass, key, vals, BPF_NOEXIST);
	if (err == -EEXIST) {
		bypass_ref(l, key, -1);
		err = map_update(l->skel->maps.mk_flow_bypass, key, vals, BPF_EXIST);
	} else if (err) {
		bypass_ref(l, key, -1);
	}
	if (err)
		mk_err("cannot add flow to map mk_flow_bypass: %s", strerror(-err));
	free(vals);
	return err;
}

int mk_loader_bypass_del(struct mk_loader *l, const struct mk_flow_key *key)
{
	int err;

	if (bpf_map_delete_elem(bpf_map__fd(l->skel->maps.mk_flow_bypass), key)) {
		err = -errno;
		mk_err("cannot delete flow from map mk_flow_bypass: %s", strerror(-err));
		return err;
	}
	err = bypass_refs_get(l);
	if (err)
		return err;
	bypass_ref(l, key, -1);
	return 0;
}

int mk_loader_bypass_prefilter_rebuild(struct mk_loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.mk_flow_bypass);
	struct mk_flow_key key, next;
	__u64 *bits = l->skel->bss->mk_bypass_bits;
	__u32 i;
	int err;

	err = bypass_refs_get(l);
	if (err)
		return err;
	memset(l->bypass_refs, 0, MK_BYPASS_PREFILTER_BITS);
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
	size_t vsz = percpu_value_size(sizeof(struct mk_bypass_value));
	int ncpus = libbpf_num_possible_cpus();
	__u8 *vals;
	int err, i;

	if (ncpus < 0)
		return ncpus;
	vals = calloc(ncpus, vsz);
	if (!vals)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.mk_flow_bypass), key, vals)) {
		err = -errno; /* -ENOENT is an answer, not a failure: the caller logs */
		goto out;
	}
	for (i = 0; i < ncpus; i++) {
		const struct mk_bypass_value *v = (const void *)(vals + i * vsz);

		sum->packets += v->packets;
		sum->bytes += v->bytes;
		if (v->last_seen_ns > sum->last_seen_ns)
			sum->last_seen_ns = v->last_seen_ns;
	}
	err = 0;
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
	set->umem_area =
	    mmap(NULL, set->umem_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
			mk_err("cannot create AF_XDP socket %u on %s queue %u: %s", w,
			       ifname, queue, strerror(-err));
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
	if (strcmp(info.name, "meerkat_xdp"))
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
