// SPDX-License-Identifier: GPL-2.0-only
/* The `capture:` keys (struct mk_capture_cfg), their bounds, and the -i override. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture_cfg.h"
#include "cfg_keys.h"

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static bool frame_size_ok(uint64_t v)
{
	return v == 2048 || v == 4096;
}

/* What the kernel's dev_valid_name() accepts. */
static bool iface_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]))
			return false;
	return true;
}

static int add_iface(struct mk_capture_cfg *c, const char *name, uint32_t queues, char *msg,
		     size_t len)
{
	unsigned int i;

	if (!iface_name_ok(name)) {
		snprintf(msg, len,
			 "'%.32s' is not an interface name (1 to %d bytes, no '/', ':' or space)",
			 name, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	for (i = 0; i < c->n_ifaces; i++) {
		if (!strcmp(c->ifaces[i].name, name)) {
			snprintf(msg, len, "'%s' is listed twice", name);
			return -EINVAL;
		}
	}
	if (c->n_ifaces == MK_MAX_IFACES) {
		snprintf(msg, len, "at most %d interfaces", MK_MAX_IFACES);
		return -EINVAL;
	}
	strcpy(c->ifaces[c->n_ifaces].name, name);
	c->ifaces[c->n_ifaces++].queues = queues;
	return 0;
}

static struct mk_iface_cfg *iface_find(struct mk_capture_cfg *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->n_ifaces; i++)
		if (!strcmp(c->ifaces[i].name, name))
			return &c->ifaces[i];
	return NULL;
}

/*
 * Makes @a and @b each other's peer, adding @b (with @a's queues) when it is
 * not listed. 0, or -EINVAL with the reason in @msg.
 */
static int pair_ifaces(struct mk_capture_cfg *c, const char *a, const char *b, char *msg,
		       size_t len)
{
	struct mk_iface_cfg *ia = iface_find(c, a), *ib;
	int err;

	if (!strcmp(a, b)) {
		snprintf(msg, len, "'%s' cannot be its own peer", a);
		return -EINVAL;
	}
	ib = iface_find(c, b);
	if (!ib) {
		err = add_iface(c, b, ia ? ia->queues : 0, msg, len);
		if (err)
			return err;
		ia = iface_find(c, a);
		ib = iface_find(c, b);
	}
	if ((ia->peer[0] && strcmp(ia->peer, b)) || (ib->peer[0] && strcmp(ib->peer, a))) {
		snprintf(msg, len, "'%s' and '%s': an interface has one peer", a, b);
		return -EINVAL;
	}
	strcpy(ia->peer, b);
	strcpy(ib->peer, a);
	return 0;
}

int mk_capture_cfg_set_ifaces(struct mk_capture_cfg *c, const char *const *names, unsigned int n,
			      char *msg, size_t len)
{
	struct mk_capture_cfg old = *c;
	char in[IF_NAMESIZE * 2 + 2];
	unsigned int i, j;
	int err;

	c->n_ifaces = 0;
	for (i = 0; i < n; i++) {
		const char *out = NULL;
		uint32_t queues = 0;

		snprintf(in, sizeof(in), "%s", names[i]);
		if (strchr(in, ':')) {
			/* IN:OUT, an inline pair */
			*strchr(in, ':') = 0;
			out = in + strlen(in) + 1;
		}
		for (j = 0; j < old.n_ifaces; j++)
			if (!strcmp(old.ifaces[j].name, in))
				queues = old.ifaces[j].queues;
		err = add_iface(c, in, queues, msg, len);
		if (!err && out)
			err = iface_name_ok(out) ? pair_ifaces(c, in, out, msg, len) :
						   add_iface(c, out, 0, msg, len);
		if (err) {
			*c = old;
			return err;
		}
	}
	return 0;
}

/*
 * capture.interfaces: a list whose items are a name or, as Suricata's
 * af-packet section writes them, a mapping with `interface` and `queues`.
 */
static int ifaces_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_capture_cfg *c = base, res = *c;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	unsigned int i, j, n = 0;
	char item[128], key[176], msg[128];
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a list of interfaces (- interface: eth0), found %s",
				    kind == MK_CFG_NODE_MAPPING ? "a mapping" : "a value");
	res.n_ifaces = 0;
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i), name_node = it;
		const char *name = NULL, *peer = NULL;
		uint64_t queues = 0;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		if (mk_cfg_node_kind(x, it) == MK_CFG_NODE_MAPPING) {
			bool have_queues = false;

			for (j = 0; j < mk_cfg_node_len(x, it); j++) {
				int kn = mk_cfg_map_key(x, it, j), vn = mk_cfg_map_value(x, it, j);
				const char *k;

				err = mk_cfg_scalar(x, kn, item, &k);
				if (err)
					return err;
				snprintf(key, sizeof(key), "%s.%.32s", item, k);
				if ((!strcmp(k, "interface") && name) ||
				    (!strcmp(k, "queues") && have_queues)) {
					err = mk_cfg_error(x, kn, key, -EINVAL, "given twice");
				} else if (!strcmp(k, "interface")) {
					err = mk_cfg_scalar(x, vn, key, &name);
					name_node = vn;
				} else if (!strcmp(k, "queues")) {
					err = mk_cfg_uint(x, vn, key, 0, MK_MAX_QUEUES, &queues);
					have_queues = true;
				} else if (!strcmp(k, "peer") && !peer) {
					err = mk_cfg_scalar(x, vn, key, &peer);
				} else {
					err = mk_cfg_error(x, kn, key, -EINVAL, "unknown key");
				}
				if (err)
					return err;
			}
			if (!name)
				return mk_cfg_error(x, it, item, -EINVAL, "no `interface:` name");
		} else {
			err = mk_cfg_scalar(x, it, item, &name);
			if (err)
				return err;
		}
		err = iface_find(&res, name) && peer ?
			      0 :
			      add_iface(&res, name, (uint32_t)queues, msg, sizeof(msg));
		if (!err && peer)
			err = iface_name_ok(peer) ?
				      pair_ifaces(&res, name, peer, msg, sizeof(msg)) :
				      add_iface(&res, peer, 0, msg, sizeof(msg));
		if (err)
			return mk_cfg_error(x, name_node, item, err, "%s", msg);
	}
	c->n_ifaces = res.n_ifaces;
	memcpy(c->ifaces, res.ifaces, sizeof(c->ifaces));
	return 0;
}

static void ifaces_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_capture_cfg *c = base;
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < c->n_ifaces; i++) {
		fprintf(out, "%s{interface: ", i ? ", " : "");
		mk_cfg_print_str(out, c->ifaces[i].name);
		fprintf(out, ", queues: %u", c->ifaces[i].queues);
		if (c->ifaces[i].peer[0]) {
			fputs(", peer: ", out);
			mk_cfg_print_str(out, c->ifaces[i].peer);
		}
		fputc('}', out);
	}
	fputs("]\n", out);
}

#define CPU_MAX 4095

/* capture.cpu-affinity: CPU numbers and ranges ("2-5"), worker w on cpus[w % ncpus]. */
static int cpus_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_capture_cfg *c = base;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	int16_t cpus[MK_MAX_WORKERS];
	unsigned int i, n = 0, ncpus = 0;
	char item[128];
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a list of CPUs ([1, 2, 4-7]), found %s",
				    kind == MK_CFG_NODE_MAPPING ? "a mapping" : "a value");
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i);
		unsigned long lo, hi;
		const char *s;
		char *end;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar(x, it, item, &s);
		if (err)
			return err;
		if (!isdigit((unsigned char)*s))
			goto bad;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-' && isdigit((unsigned char)end[1]))
			hi = strtoul(end + 1, &end, 10);
		if (*end || lo > hi || hi > CPU_MAX)
			goto bad;
		for (; lo <= hi; lo++) {
			if (ncpus == MK_MAX_WORKERS)
				return mk_cfg_error(x, it, item, -EINVAL, "more than %d CPUs",
						    MK_MAX_WORKERS);
			cpus[ncpus++] = (int16_t)lo;
		}
		continue;
bad:
		return mk_cfg_error(x, it, item, -EINVAL,
				    "'%.32s' is not a CPU number or range (2-5) in [0, %d]", s,
				    CPU_MAX);
	}
	memcpy(c->cpus, cpus, ncpus * sizeof(cpus[0]));
	c->ncpus = ncpus;
	return 0;
}

static void cpus_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_capture_cfg *c = base;
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < c->ncpus; i++)
		fprintf(out, "%s%d", i ? ", " : "", c->cpus[i]);
	fputs("]\n", out);
}

static const struct mk_cfg_name attach_names[] = {
	{ "auto", MK_XDP_ATTACH_AUTO },
	{ "native", MK_XDP_ATTACH_NATIVE },
	{ "generic", MK_XDP_ATTACH_GENERIC },
	{ "drv", MK_XDP_ATTACH_NATIVE }, /* Suricata's af-xdp force-xdp-mode */
	{ "skb", MK_XDP_ATTACH_GENERIC },
	{ NULL, 0 },
};

static const struct mk_cfg_name zc_names[] = {
	{ "auto", MK_ZC_AUTO },
	{ "on", MK_ZC_ON },
	{ "off", MK_ZC_OFF },
	/* YAML writers think of on/off as booleans */
	{ "yes", MK_ZC_ON },
	{ "true", MK_ZC_ON },
	{ "no", MK_ZC_OFF },
	{ "false", MK_ZC_OFF },
	{ NULL, 0 },
};

static const struct mk_cfg_name unparsable_names[] = {
	{ "forward", MK_IPS_FORWARD },
	{ "drop", MK_IPS_DROP },
	{ NULL, 0 },
};

static const struct mk_cfg_name failure_names[] = {
	{ "open", MK_IPS_FORWARD },
	{ "closed", MK_IPS_DROP },
	{ NULL, 0 },
};

#define C struct mk_capture_cfg
#define RING(p, f) MK_CFG_UINT_IF(p, C, f, 64, 1u << 16, pow2, "a power of two")
static const struct mk_cfg_key capture_keys[] = {
	MK_CFG_CUSTOM("capture.interfaces", ifaces_parse, ifaces_dump),
	MK_CFG_UINT("capture.workers", C, workers, 0, MK_MAX_WORKERS),
	MK_CFG_CUSTOM("capture.cpu-affinity", cpus_parse, cpus_dump),
	MK_CFG_UINT_IF("capture.frame-size", C, frame_size, 2048, 4096, frame_size_ok,
		       "2048 or 4096"),
	MK_CFG_UINT("capture.frame-count", C, frame_count, 64, 1u << 20),
	RING("capture.rx-ring-size", rx_size),
	RING("capture.fill-ring-size", fill_size),
	RING("capture.comp-ring-size", comp_size),
	MK_CFG_UINT("capture.batch-size", C, batch, 1, 1024),
	MK_CFG_UINT("capture.reorder-window-us", C, reorder_window_us, 0, MK_REORDER_WINDOW_US_MAX),
	MK_CFG_ENUM("capture.attach-mode", C, attach, attach_names),
	MK_CFG_ENUM("capture.zero-copy", C, zero_copy, zc_names),
	MK_CFG_BOOL("capture.busy-poll.enabled", C, busy_poll),
	MK_CFG_UINT("capture.busy-poll.usecs", C, busy_poll_usecs, 1, 1000000),
	MK_CFG_UINT("capture.busy-poll.budget", C, busy_poll_budget, 1, 65535),
	MK_CFG_BOOL("capture.ips", C, ips),
	MK_CFG_ENUM("ips.unparsable", C, ips_unparsable, unparsable_names),
	MK_CFG_ENUM("ips.failure", C, ips_failure, failure_names),
	MK_CFG_STRING("capture.pin-dir", C, pin_dir),
	MK_CFG_STRING("capture.control-socket", C, ctl_socket),
	MK_CFG_UINT("capture.reader-threads", C, reader_threads, 0, MK_MAX_READER_THREADS),
};
#undef RING
#undef C

static void capture_defaults(void *base)
{
	mk_capture_cfg_defaults(base);
}

/* a receive batch comes from one RX ring */
static int capture_check(const void *base, char *msg, size_t len)
{
	const struct mk_capture_cfg *c = base;

	if (c->batch > c->rx_size) {
		snprintf(msg, len, "capture.batch-size (%u) is more than capture.rx-ring-size (%u)",
			 c->batch, c->rx_size);
		return -EINVAL;
	}
	return 0;
}

const struct mk_cfg_table mk_capture_cfg_table = {
	.name = "capture",
	.keys = capture_keys,
	.nkeys = MK_ARRAY_SIZE(capture_keys),
	.defaults = capture_defaults,
	.check = capture_check,
};
