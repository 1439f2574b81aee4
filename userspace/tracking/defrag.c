// SPDX-License-Identifier: GPL-2.0-only
/*
 * IPv4/IPv6 fragment reassembly (see defrag.h and docs/defrag.md).
 *
 * Layout: a preallocated pool of trackers, one per datagram in progress,
 * found through a chained hash table and kept on an age list in creation
 * order, so expiry and eviction take the oldest from its head. Each tracker
 * owns a preallocated slice of fragment records, kept sorted by offset for
 * the coverage check. Fragment bytes live in chains of fixed-size chunks
 * from a pool preallocated at memcap: the data path does not allocate
 * until it delivers a datagram, and the memcap is exact. Overlaps are
 * resolved once, when the datagram is complete, by replaying the fragments
 * in arrival order onto a per-byte owner map: that makes each policy a
 * one-line rule on a pair of fragments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_keys.h"
#include "compat.h"
#include "hash.h"
#include "defrag.h"

#define IPV6_HLEN 40
#define IPV6_FRAG_HLEN 8
#define NEXTHDR_HOP 0
#define NEXTHDR_ROUTING 43
#define NEXTHDR_FRAGMENT 44
#define NEXTHDR_DEST 60
/* Extension headers we walk to find the fragment header: as common/parse.h. */
#define IPV6_EXT_MAX 8
_Static_assert(40 + IPV6_EXT_MAX * 2048 + 8 <= 0xffff, "16-bit header offsets");
/* Payload bytes of one datagram can never exceed a 16-bit length field. */
#define PAYLOAD_MAX 65535u
#define NO_OWNER 0xffffu
/* Small enough that tiny fragments waste little, large enough that chains stay short. */
#define CHUNK_SIZE 256u
#define NO_CHUNK 0xffffffffu

/* Datagram identity: DESIGN 1.2's outer context plus the IP fragment id. */
struct mk_defrag_key {
	__u32 src[4];
	__u32 dst[4];
	__u32 id;
	__u32 tunnel_ctx;
	__u16 vlan[2];
	__u8 family;
	__u8 proto; /* IPv4 only: IPv6 fragments of one datagram may differ in chain */
	__u8 pad[2];
};
_Static_assert(sizeof(struct mk_defrag_key) % 4 == 0, "hashed as 32-bit words");

struct mk_defrag_frag {
	__u32 chunk;   /* first chunk: unfragmentable header (offset 0 only), then payload */
	__u32 off;     /* payload offset in the datagram */
	__u32 len;     /* payload bytes */
	__u16 hdr_len; /* bytes of header in front of the payload */
	__u16 seq;     /* arrival order within the datagram */
	__u16 nh_off;  /* IPv6: next-header byte that named the fragment header */
	__u8 next_hdr; /* IPv6: what follows the fragment header */
	__u8 pad;
};

struct mk_defrag_tracker {
	struct mk_defrag_key key;
	struct mk_defrag_tracker *hnext; /* hash chain */
	struct mk_defrag_tracker *prev;	 /* age list, or free list (next only) */
	struct mk_defrag_tracker *next;
	struct mk_defrag_frag *frags; /* max_frags slots, sorted by off */
	__u64 created_ns;
	__u32 chunks; /* chunks held by all its fragments */
	__u32 hash;
	__u32 end; /* payload length, known once the last fragment is in */
	__u32 nfrags;
	__u8 have_end;
	__u8 in_use;
	__u8 overlap; /* some byte is held twice: the policy has work to do */
};

struct mk_defrag {
	struct mk_defrag_config cfg;
	struct mk_defrag_stats st;
	struct mk_defrag_tracker *trackers;
	struct mk_defrag_frag *frag_slab;
	struct mk_defrag_tracker **buckets;
	__u32 bucket_mask;
	struct mk_defrag_tracker *free_list;
	struct mk_defrag_tracker age; /* sentinel: next is the oldest */
	__u16 *owner;		      /* per payload byte: index of the fragment holding it */
	__u16 *order;		      /* arrival order -> fragment index */
	__u8 *scratch;		      /* the payload being assembled */
	__u8 *chunk_mem;	      /* nchunks * CHUNK_SIZE bytes */
	__u32 *chunk_next;	      /* chain links, also the free list */
	__u32 chunk_free;
	__u32 nchunks;
	__u32 chunks_used;
};

/* Sequential reader or writer over a chunk chain. */
struct chunk_cursor {
	__u32 chunk;
	__u32 pos;
};

/* One fragment, parsed. */
struct frag_info {
	struct mk_defrag_key key;
	const __u8 *pkt;
	__u32 hdr_len;	   /* IPv4 header / IPv6 unfragmentable part */
	__u32 payload_off; /* first payload byte in pkt */
	__u32 off;
	__u32 len;
	__u32 nh_off;
	__u8 next_hdr;
	__u8 more;
};

static __u16 rd16(const __u8 *p)
{
	return (__u16)((p[0] << 8) | p[1]);
}

static __u32 rd32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
}

static void wr16(__u8 *p, __u16 v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

void mk_defrag_config_default(struct mk_defrag_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->timeout_ns = MK_DEFRAG_DEFAULT_TIMEOUT_NS;
	cfg->memcap = MK_DEFRAG_DEFAULT_MEMCAP;
	cfg->max_trackers = MK_DEFRAG_DEFAULT_MAX_TRACKERS;
	cfg->max_frags = MK_DEFRAG_DEFAULT_MAX_FRAGS;
	cfg->max_datagram = MK_DEFRAG_DEFAULT_MAX_DATAGRAM;
	cfg->policy = MK_DEFRAG_POLICY_BSD;
}

static const char *const policy_names[MK_DEFRAG_POLICY_MAX] = {
	[MK_DEFRAG_POLICY_BSD] = "bsd",
	[MK_DEFRAG_POLICY_FIRST] = "first",
	[MK_DEFRAG_POLICY_LAST] = "last",
	[MK_DEFRAG_POLICY_REJECT] = "reject",
};

const char *mk_defrag_policy_name(enum mk_defrag_policy p)
{
	return (unsigned int)p < MK_DEFRAG_POLICY_MAX ? policy_names[p] : "unknown";
}

int mk_defrag_policy_parse(const char *name, enum mk_defrag_policy *p)
{
	int i;

	for (i = 0; i < MK_DEFRAG_POLICY_MAX; i++) {
		if (!strcmp(name, policy_names[i])) {
			*p = (enum mk_defrag_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

int mk_defrag_create(const struct mk_defrag_config *cfg, struct mk_defrag **out)
{
	struct mk_defrag *d;
	__u32 nb, i;

	*out = NULL;
	/* seq and owner are 16-bit with NO_OWNER reserved */
	if (!cfg->max_trackers || !cfg->max_frags || cfg->max_frags >= NO_OWNER ||
	    cfg->memcap / CHUNK_SIZE >= NO_CHUNK || cfg->max_trackers > (1u << 24) ||
	    cfg->max_datagram < 68 || cfg->max_datagram > PAYLOAD_MAX || !cfg->timeout_ns ||
	    (unsigned int)cfg->policy >= MK_DEFRAG_POLICY_MAX)
		return -EINVAL;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->cfg = *cfg;
	/* an empty age list first, so mk_defrag_destroy() can undo a partial create */
	d->age.next = d->age.prev = &d->age;
	for (nb = 1; nb < cfg->max_trackers * 2; nb <<= 1)
		;
	d->bucket_mask = nb - 1;
	d->buckets = calloc(nb, sizeof(*d->buckets));
	d->trackers = calloc(cfg->max_trackers, sizeof(*d->trackers));
	d->frag_slab = calloc((size_t)cfg->max_trackers * cfg->max_frags, sizeof(*d->frag_slab));
	d->owner = malloc(PAYLOAD_MAX * sizeof(*d->owner));
	d->order = malloc(cfg->max_frags * sizeof(*d->order));
	d->scratch = malloc(PAYLOAD_MAX);
	d->nchunks = cfg->memcap / CHUNK_SIZE;
	/* every chunk byte is written before it is read: no need to clear the pool */
	d->chunk_mem = malloc((size_t)d->nchunks * CHUNK_SIZE + 1);
	d->chunk_next = malloc(((size_t)d->nchunks + 1) * sizeof(*d->chunk_next));
	if (!d->buckets || !d->trackers || !d->frag_slab || !d->owner || !d->order || !d->scratch ||
	    !d->chunk_mem || !d->chunk_next)
		goto err_free;

	d->chunk_free = d->nchunks ? 0 : NO_CHUNK;
	for (i = 0; i < d->nchunks; i++)
		d->chunk_next[i] = i + 1 < d->nchunks ? i + 1 : NO_CHUNK;
	for (i = cfg->max_trackers; i-- > 0;) {
		d->trackers[i].frags = d->frag_slab + (size_t)i * cfg->max_frags;
		d->trackers[i].next = d->free_list;
		d->free_list = &d->trackers[i];
	}
	*out = d;
	return 0;

err_free:
	mk_defrag_destroy(d);
	return -ENOMEM;
}

static __u32 chunks_for(__u32 bytes)
{
	return (bytes + CHUNK_SIZE - 1) / CHUNK_SIZE;
}

/* Takes @n chunks (the caller made room) and chains them. */
static __u32 chunk_alloc(struct mk_defrag *d, __u32 n)
{
	__u32 head = d->chunk_free, last = head;

	while (--n)
		last = d->chunk_next[last];
	d->chunk_free = d->chunk_next[last];
	d->chunk_next[last] = NO_CHUNK;
	return head;
}

static void chunk_release(struct mk_defrag *d, __u32 head)
{
	__u32 last = head;

	while (d->chunk_next[last] != NO_CHUNK)
		last = d->chunk_next[last];
	d->chunk_next[last] = d->chunk_free;
	d->chunk_free = head;
}

static void chunk_write(struct mk_defrag *d, struct chunk_cursor *c, const __u8 *src, __u32 len)
{
	while (len) {
		__u32 n = CHUNK_SIZE - c->pos;

		if (n > len)
			n = len;
		memcpy(d->chunk_mem + (size_t)c->chunk * CHUNK_SIZE + c->pos, src, n);
		src += n;
		len -= n;
		c->pos += n;
		if (c->pos == CHUNK_SIZE) {
			c->chunk = d->chunk_next[c->chunk];
			c->pos = 0;
		}
	}
}

static void chunk_skip(const struct mk_defrag *d, struct chunk_cursor *c, __u32 len)
{
	c->pos += len;
	while (c->pos >= CHUNK_SIZE) {
		c->chunk = d->chunk_next[c->chunk];
		c->pos -= CHUNK_SIZE;
	}
}

static void chunk_read(const struct mk_defrag *d, struct chunk_cursor *c, __u8 *dst, __u32 len)
{
	while (len) {
		__u32 n = CHUNK_SIZE - c->pos;

		if (n > len)
			n = len;
		memcpy(dst, d->chunk_mem + (size_t)c->chunk * CHUNK_SIZE + c->pos, n);
		dst += n;
		len -= n;
		c->pos += n;
		if (c->pos == CHUNK_SIZE) {
			c->chunk = d->chunk_next[c->chunk];
			c->pos = 0;
		}
	}
}

/* Frees a tracker's data and returns it to the free list; the caller counts why. */
static void tracker_release(struct mk_defrag *d, struct mk_defrag_tracker *t)
{
	struct mk_defrag_tracker **pp = &d->buckets[t->hash & d->bucket_mask];
	__u32 i;

	while (*pp != t)
		pp = &(*pp)->hnext;
	*pp = t->hnext;
	t->prev->next = t->next;
	t->next->prev = t->prev;

	for (i = 0; i < t->nfrags; i++)
		chunk_release(d, t->frags[i].chunk);
	d->chunks_used -= t->chunks;
	d->st.mem_used = (__u64)d->chunks_used * CHUNK_SIZE;
	d->st.trackers_used--;
	t->in_use = 0;
	t->next = d->free_list;
	d->free_list = t;
}

void mk_defrag_destroy(struct mk_defrag *d)
{
	if (!d)
		return;
	while (d->age.next != &d->age) {
		tracker_release(d, d->age.next);
		d->st.dg_flushed++;
	}
	free(d->chunk_next);
	free(d->chunk_mem);
	free(d->scratch);
	free(d->order);
	free(d->owner);
	free(d->frag_slab);
	free(d->trackers);
	free(d->buckets);
	free(d);
}

void mk_defrag_datagram_free(struct mk_defrag_datagram *dg)
{
	free(dg->data);
	dg->data = NULL;
	dg->len = 0;
}

static int expired(const struct mk_defrag *d, const struct mk_defrag_tracker *t, __u64 now)
{
	/* a pcap may step back in time: an older timestamp never expires anything */
	return now >= t->created_ns && now - t->created_ns >= d->cfg.timeout_ns;
}

__u32 mk_defrag_expire(struct mk_defrag *d, __u64 now_ns)
{
	__u32 n = 0;

	/* the age list is in creation order, so stop at the first young one */
	while (d->age.next != &d->age && expired(d, d->age.next, now_ns)) {
		tracker_release(d, d->age.next);
		d->st.dg_timeout++;
		n++;
	}
	return n;
}

/*
 * Parsers. They fill @fi and return 0, -ENOTSUP for a packet that is not a
 * fragment, or -EINVAL when the header cannot be read (the datagram cannot
 * even be identified).
 */
static int parse_ipv4(const __u8 *h, __u32 len, struct frag_info *fi)
{
	__u32 ihl, tot;
	__u16 fo;

	if (len < 20)
		return -EINVAL;
	ihl = (h[0] & 0x0f) * 4u;
	tot = rd16(h + 2);
	if (ihl < 20 || tot < ihl || tot > len)
		return -EINVAL;
	fo = rd16(h + 6);
	fi->off = (fo & 0x1fffu) * 8;
	fi->more = !!(fo & 0x2000);
	if (!fi->off && !fi->more)
		return -ENOTSUP;
	fi->key.family = 4;
	fi->key.proto = h[9];
	fi->key.id = rd16(h + 4);
	memcpy(&fi->key.src[0], h + 12, 4);
	memcpy(&fi->key.dst[0], h + 16, 4);
	fi->hdr_len = ihl;
	fi->payload_off = ihl;
	fi->len = tot - ihl;
	return 0;
}

/* At most IPV6_EXT_MAX headers of <= 2048 bytes: hdr_len and nh_off fit in 16 bits. */
static int parse_ipv6(const __u8 *h, __u32 len, struct frag_info *fi)
{
	__u32 end, off = IPV6_HLEN, nh_off = 6;
	__u8 nh;
	__u16 fo;
	int i;

	if (len < IPV6_HLEN)
		return -EINVAL;
	end = IPV6_HLEN + rd16(h + 4);
	if (end > len)
		return -EINVAL;
	nh = h[6];
	/* only the unfragmentable headers may come before the fragment header */
	for (i = 0; i < IPV6_EXT_MAX && nh != NEXTHDR_FRAGMENT; i++) {
		if (nh != NEXTHDR_HOP && nh != NEXTHDR_ROUTING && nh != NEXTHDR_DEST)
			return -ENOTSUP;
		if (off + 8 > end)
			return -EINVAL;
		nh_off = off;
		nh = h[off];
		off += ((__u32)h[off + 1] + 1) * 8;
	}
	if (nh != NEXTHDR_FRAGMENT)
		return -ENOTSUP;
	if (off + IPV6_FRAG_HLEN > end)
		return -EINVAL;
	fo = rd16(h + off + 2);
	fi->off = fo & 0xfff8u;
	fi->more = fo & 1;
	fi->next_hdr = h[off];
	fi->nh_off = nh_off;
	fi->key.family = 6;
	fi->key.id = rd32(h + off + 4);
	memcpy(fi->key.src, h + 8, 16);
	memcpy(fi->key.dst, h + 24, 16);
	fi->hdr_len = off;
	fi->payload_off = off + IPV6_FRAG_HLEN;
	fi->len = end - fi->payload_off;
	return 0;
}

static __u32 key_hash(const struct mk_defrag *d, const struct mk_defrag_key *k)
{
	return mk_jhash_words((const __u32 *)k, sizeof(*k) / 4, d->cfg.seed);
}

static struct mk_defrag_tracker *tracker_find(struct mk_defrag *d, const struct mk_defrag_key *k,
					      __u32 hash)
{
	struct mk_defrag_tracker *t;

	for (t = d->buckets[hash & d->bucket_mask]; t; t = t->hnext) {
		if (t->hash == hash && !memcmp(&t->key, k, sizeof(*k)))
			return t;
	}
	return NULL;
}

static struct mk_defrag_tracker *tracker_new(struct mk_defrag *d, const struct mk_defrag_key *k,
					     __u32 hash, __u64 now)
{
	struct mk_defrag_tracker *t, **b;

	if (!d->free_list) {
		/* all busy: the oldest is the least likely to ever complete */
		tracker_release(d, d->age.next);
		d->st.dg_evicted++;
	}
	t = d->free_list;
	d->free_list = t->next;

	t->key = *k;
	t->hash = hash;
	t->created_ns = now;
	t->chunks = 0;
	t->end = 0;
	t->nfrags = 0;
	t->have_end = 0;
	t->overlap = 0;
	t->in_use = 1;
	b = &d->buckets[hash & d->bucket_mask];
	t->hnext = *b;
	*b = t;
	t->prev = d->age.prev;
	t->next = &d->age;
	d->age.prev->next = t;
	d->age.prev = t;
	d->st.trackers_used++;
	return t;
}

/* Frees the oldest trackers other than @keep until @need more chunks fit. */
static int make_room(struct mk_defrag *d, struct mk_defrag_tracker *keep, __u32 need)
{
	struct mk_defrag_tracker *t = d->age.next;

	while (d->chunks_used + need > d->nchunks) {
		if (t == keep)
			t = t->next;
		if (t == &d->age)
			return -ENOBUFS;
		tracker_release(d, t);
		d->st.dg_memcap++;
		t = d->age.next;
	}
	return 0;
}

/* Does the new fragment's copy of a byte replace the one held by @old? */
static int new_wins(enum mk_defrag_policy p, const struct mk_defrag_frag *nf,
		    const struct mk_defrag_frag *old)
{
	switch (p) {
	case MK_DEFRAG_POLICY_FIRST:
	case MK_DEFRAG_POLICY_REJECT: /* only exact duplicates get here: keep the first */
		return 0;
	case MK_DEFRAG_POLICY_LAST:
		return 1;
	case MK_DEFRAG_POLICY_BSD:
	default:
		return nf->off < old->off;
	}
}

static __u16 ipv4_csum(const __u8 *h, __u32 len)
{
	__u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += rd16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static int finish(const struct mk_defrag_tracker *t, const struct mk_defrag_frag *first, __u8 *buf,
		  __u32 total, struct mk_defrag_datagram *out);

static int datagram_too_big(const struct mk_defrag *d, const struct mk_defrag_tracker *t,
			    __u32 total)
{
	return t->key.family == 4 ? total > d->cfg.max_datagram :
				    total - IPV6_HLEN > d->cfg.max_datagram;
}

/* No byte held twice (the common case): each fragment is copied straight in. */
static int assemble_disjoint(struct mk_defrag *d, struct mk_defrag_tracker *t,
			     struct mk_defrag_datagram *out)
{
	const struct mk_defrag_frag *first = &t->frags[0]; /* sorted: the offset-0 one */
	__u32 total = first->hdr_len + t->end, i;
	__u8 *buf;

	if (datagram_too_big(d, t, total))
		return -EMSGSIZE;
	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < t->nfrags; i++) {
		const struct mk_defrag_frag *f = &t->frags[i];
		struct chunk_cursor c = { f->chunk, 0 };

		chunk_read(d, &c, i ? buf + first->hdr_len + f->off : buf, f->hdr_len + f->len);
	}
	return finish(t, first, buf, total, out);
}

/*
 * Builds the datagram of a complete tracker into @out. Returns 0, or
 * -EMSGSIZE / -ENOMEM (the caller abandons the tracker and counts).
 */
static int assemble(struct mk_defrag *d, struct mk_defrag_tracker *t,
		    struct mk_defrag_datagram *out)
{
	const struct mk_defrag_frag *first, *f;
	__u32 i, b, hl, total;
	int mismatch = 0;
	__u8 *buf;

	if (!t->overlap)
		return assemble_disjoint(d, t, out);
	for (i = 0; i < t->nfrags; i++)
		d->order[t->frags[i].seq] = (__u16)i;
	for (b = 0; b < t->end; b++)
		d->owner[b] = NO_OWNER;

	/* replay in arrival order: the policy decides each byte held twice */
	for (i = 0; i < t->nfrags; i++) {
		__u16 idx = d->order[i];
		struct chunk_cursor c;

		f = &t->frags[idx];
		c.chunk = f->chunk;
		c.pos = 0;
		chunk_skip(d, &c, f->hdr_len);
		for (b = f->off; b < f->off + f->len; b++) {
			__u16 cur = d->owner[b];
			__u8 byte;

			if (c.pos == CHUNK_SIZE) {
				c.chunk = d->chunk_next[c.chunk];
				c.pos = 0;
			}
			byte = d->chunk_mem[(size_t)c.chunk * CHUNK_SIZE + c.pos++];
			if (cur == NO_OWNER) {
				d->scratch[b] = byte;
				d->owner[b] = idx;
				continue;
			}
			mismatch |= d->scratch[b] != byte;
			if (new_wins(d->cfg.policy, f, &t->frags[cur])) {
				d->scratch[b] = byte;
				d->owner[b] = idx;
			}
		}
	}

	/* the header comes from the offset-0 fragment whose data won */
	first = &t->frags[d->owner[0]];
	hl = first->hdr_len;
	total = hl + t->end;
	if (datagram_too_big(d, t, total))
		return -EMSGSIZE;

	buf = malloc(total);
	if (!buf)
		return -ENOMEM;
	{
		struct chunk_cursor c = { first->chunk, 0 };

		chunk_read(d, &c, buf, hl);
	}
	memcpy(buf + hl, d->scratch, t->end);
	if (mismatch)
		d->st.dg_overlap_mismatch++;
	return finish(t, first, buf, total, out);
}

/* Header fix-ups common to both assembly paths. */
static int finish(const struct mk_defrag_tracker *t, const struct mk_defrag_frag *first, __u8 *buf,
		  __u32 total, struct mk_defrag_datagram *out)
{
	__u32 hl = first->hdr_len;

	if (t->key.family == 4) {
		wr16(buf + 2, (__u16)total);
		/* keep DF and the reserved bit; MF and the offset are gone */
		wr16(buf + 6, rd16(buf + 6) & 0xc000);
		wr16(buf + 10, 0);
		wr16(buf + 10, ipv4_csum(buf, hl));
	} else {
		wr16(buf + 4, (__u16)(total - IPV6_HLEN));
		buf[first->nh_off] = first->next_hdr;
	}
	out->data = buf;
	out->len = total;
	out->nfrags = t->nfrags;
	return 0;
}

/* Is [0, end) covered? Fragments are sorted by offset. */
static int complete(const struct mk_defrag_tracker *t)
{
	__u32 reach = 0, i;

	if (!t->have_end)
		return 0;
	for (i = 0; i < t->nfrags && reach < t->end; i++) {
		if (t->frags[i].off > reach)
			return 0;
		if (t->frags[i].off + t->frags[i].len > reach)
			reach = t->frags[i].off + t->frags[i].len;
	}
	return reach >= t->end;
}

/* Drops @t (when there is one) for @reason and returns @err. */
static int abandon(struct mk_defrag *d, struct mk_defrag_tracker *t, __u64 *reason, int err)
{
	if (t)
		tracker_release(d, t);
	(*reason)++;
	return err;
}

/*
 * An atomic fragment (offset 0, no more fragments) is a whole datagram:
 * RFC 6946 says to reassemble it alone, not mixed into a pending tracker.
 */
static int atomic_v6(struct mk_defrag *d, const struct frag_info *fi, __u64 ts,
		     struct mk_defrag_datagram *out)
{
	__u32 total = fi->hdr_len + fi->len;
	__u8 *buf;

	/* max_datagram bounds every delivered datagram, atomic ones included */
	if (total - IPV6_HLEN > d->cfg.max_datagram) {
		d->st.dg_oversize++;
		return -EMSGSIZE;
	}
	buf = malloc(total);
	if (!buf) {
		d->st.dg_nomem++;
		return -ENOMEM;
	}
	memcpy(buf, fi->pkt, fi->hdr_len);
	memcpy(buf + fi->hdr_len, fi->pkt + fi->payload_off, fi->len);
	wr16(buf + 4, (__u16)(total - IPV6_HLEN));
	buf[fi->nh_off] = fi->next_hdr;
	out->data = buf;
	out->len = total;
	out->nfrags = 1;
	out->ts_ns = ts;
	d->st.dg_reassembled++;
	return MK_DEFRAG_DONE;
}

/* Reads the fragment's headers into @fi; 0, or the error that was counted. */
static int fragment_parse(struct mk_defrag *d, const void *ip, __u32 len,
			  const struct mk_defrag_outer *outer, struct frag_info *fi)
{
	int ret;

	memset(fi, 0, sizeof(*fi));
	fi->pkt = ip;
	if (!ip || !len) {
		ret = -EINVAL;
	} else if ((fi->pkt[0] >> 4) == 4) {
		d->st.frags_v4++;
		ret = parse_ipv4(fi->pkt, len, fi);
	} else if ((fi->pkt[0] >> 4) == 6) {
		d->st.frags_v6++;
		ret = parse_ipv6(fi->pkt, len, fi);
	} else {
		ret = -EINVAL;
	}
	if (ret == -ENOTSUP) {
		d->st.frags_not_fragment++;
		return ret;
	}
	if (ret) {
		d->st.frags_malformed++;
		return ret;
	}
	if (outer) {
		fi->key.vlan[0] = outer->vlan[0];
		fi->key.vlan[1] = outer->vlan[1];
		fi->key.tunnel_ctx = outer->tunnel_ctx;
	}
	return 0;
}

/*
 * Checks the fragment alone, then against what datagram @t (NULL: none yet)
 * already holds; a fragment that spoils the datagram abandons it, counted.
 */
static int fragment_check(struct mk_defrag *d, struct mk_defrag_tracker *t,
			  const struct frag_info *fi)
{
	__u32 extra, fend = fi->off + fi->len, i;

	if (!fi->len || (fi->more && (fi->len & 7)))
		return abandon(d, t, &d->st.dg_invalid, -EINVAL);
	extra = fi->key.family == 4 ? fi->hdr_len : fi->hdr_len - IPV6_HLEN;
	if ((__u64)fi->off + fi->len + extra > d->cfg.max_datagram)
		return abandon(d, t, &d->st.dg_oversize, -EMSGSIZE);
	if (!t)
		return 0;
	if (t->have_end && (fend > t->end || (!fi->more && fend != t->end)))
		return abandon(d, t, &d->st.dg_invalid, -EINVAL);
	if (!fi->more) {
		/* sorted by offset, but a long early fragment may reach further */
		for (i = 0; i < t->nfrags; i++) {
			if (t->frags[i].off + t->frags[i].len > fend)
				return abandon(d, t, &d->st.dg_invalid, -EINVAL);
		}
	}
	if (t->nfrags >= d->cfg.max_frags)
		return abandon(d, t, &d->st.dg_too_many_frags, -E2BIG);
	for (i = 0; i < t->nfrags; i++) {
		const struct mk_defrag_frag *o = &t->frags[i];

		if (o->off < fi->off + fi->len && fi->off < o->off + o->len) {
			d->st.frags_overlap++;
			t->overlap = 1;
			if (d->cfg.policy == MK_DEFRAG_POLICY_REJECT &&
			    (o->off != fi->off || o->len != fi->len))
				return abandon(d, t, &d->st.dg_overlap, -EEXIST);
			break;
		}
	}
	return 0;
}

/* Stores the fragment in @t, sorted by offset, in @need chunks (room was made). */
static void fragment_store(struct mk_defrag *d, struct mk_defrag_tracker *t,
			   const struct frag_info *fi, __u32 need)
{
	struct mk_defrag_frag *f;
	struct chunk_cursor cur;
	__u32 pos;

	for (pos = t->nfrags; pos > 0 && t->frags[pos - 1].off > fi->off; pos--)
		;
	memmove(&t->frags[pos + 1], &t->frags[pos], (t->nfrags - pos) * sizeof(*t->frags));
	f = &t->frags[pos];
	memset(f, 0, sizeof(*f));
	f->chunk = chunk_alloc(d, need);
	f->off = fi->off;
	f->len = fi->len;
	f->seq = (__u16)t->nfrags;
	cur.chunk = f->chunk;
	cur.pos = 0;
	if (!fi->off) {
		f->hdr_len = (__u16)fi->hdr_len;
		f->nh_off = (__u16)fi->nh_off;
		f->next_hdr = fi->next_hdr;
		chunk_write(d, &cur, fi->pkt, fi->hdr_len);
	}
	chunk_write(d, &cur, fi->pkt + fi->payload_off, fi->len);
	t->nfrags++;
	t->chunks += need;
	d->chunks_used += need;
	d->st.mem_used = (__u64)d->chunks_used * CHUNK_SIZE;
	if (d->st.mem_used > d->st.mem_peak)
		d->st.mem_peak = d->st.mem_used;
	if (!fi->more) {
		t->end = fi->off + fi->len;
		t->have_end = 1;
	}
}

int mk_defrag_input(struct mk_defrag *d, const void *ip, __u32 len, __u64 ts_ns,
		    const struct mk_defrag_outer *outer, struct mk_defrag_datagram *out)
{
	struct mk_defrag_tracker *t;
	struct frag_info fi;
	__u32 hash, need;
	int ret;

	d->st.frags_in++;
	ret = fragment_parse(d, ip, len, outer, &fi);
	if (ret)
		return ret;

	mk_defrag_expire(d, ts_ns);
	if (fi.key.family == 6 && !fi.off && !fi.more)
		return atomic_v6(d, &fi, ts_ns, out);

	hash = key_hash(d, &fi.key);
	t = tracker_find(d, &fi.key, hash);
	if (t && expired(d, t, ts_ns)) {
		/* timestamps stepped back past the age list's order: expire it here */
		abandon(d, t, &d->st.dg_timeout, 0);
		t = NULL;
	}
	ret = fragment_check(d, t, &fi);
	if (ret)
		return ret;

	need = chunks_for(fi.len + (fi.off ? 0 : fi.hdr_len));
	if (need > d->nchunks)
		return abandon(d, t, &d->st.dg_memcap, -ENOBUFS);
	if (make_room(d, t, need))
		return abandon(d, t, &d->st.dg_memcap, -ENOBUFS);
	if (!t)
		t = tracker_new(d, &fi.key, hash, ts_ns);
	fragment_store(d, t, &fi, need);

	if (!complete(t))
		return MK_DEFRAG_HELD;
	ret = assemble(d, t, out);
	if (ret == -EMSGSIZE)
		return abandon(d, t, &d->st.dg_oversize, ret);
	if (ret)
		return abandon(d, t, &d->st.dg_nomem, ret);
	out->ts_ns = ts_ns;
	tracker_release(d, t);
	d->st.dg_reassembled++;
	return MK_DEFRAG_DONE;
}

void mk_defrag_get_stats(const struct mk_defrag *d, struct mk_defrag_stats *st)
{
	*st = d->st;
}

void mk_defrag_stats_add(struct mk_defrag_stats *dst, const struct mk_defrag_stats *src)
{
#define MK_DEFRAG_STAT_ADD(name) dst->name += src->name;
	MK_DEFRAG_STATS(MK_DEFRAG_STAT_ADD)
#undef MK_DEFRAG_STAT_ADD
	dst->mem_used += src->mem_used;
	dst->mem_peak += src->mem_peak; /* each worker's peak: at least the sum's */
	dst->trackers_used += src->trackers_used;
}

void mk_defrag_stats_foreach(const struct mk_defrag_stats *st,
			     void (*fn)(const char *name, __u64 value, void *arg), void *arg)
{
#define MK_DEFRAG_STAT_CALL(name) fn(#name, st->name, arg);
	MK_DEFRAG_STATS(MK_DEFRAG_STAT_CALL)
#undef MK_DEFRAG_STAT_CALL
	fn("mem_used", st->mem_used, arg);
	fn("mem_peak", st->mem_peak, arg);
	fn("trackers_used", st->trackers_used, arg);
}

static void print_one(const char *name, __u64 value, void *arg)
{
	fprintf(arg, "defrag.%s %llu\n", name, (unsigned long long)value);
}

void mk_defrag_stats_print(const struct mk_defrag_stats *st, FILE *f)
{
	mk_defrag_stats_foreach(st, print_one, f);
}

/*
 * The defragmenter's keys. `trackers` is Suricata's name and meaning;
 * `max-frags` is Suricata's name but counts fragments per datagram here
 * (Suricata: fragments kept in all), so a copied suricata.yaml value is
 * caught by the bound below before it asks for gigabytes.
 */
#define FRAG_SLOTS_MAX (1u << 24)

static int defrag_cfg_check(const void *base, char *msg, size_t len)
{
	const struct mk_defrag_config *c = base;

	/* every tracker preallocates max_frags fragment records */
	if ((uint64_t)c->max_trackers * c->max_frags > FRAG_SLOTS_MAX) {
		snprintf(msg, len,
			 "defrag: trackers (%u) x max-frags (%u) fragment records is more than %u "
			 "(%zu bytes each, preallocated); max-frags counts fragments per datagram",
			 c->max_trackers, c->max_frags, FRAG_SLOTS_MAX,
			 sizeof(struct mk_defrag_frag));
		return -EINVAL;
	}
	return 0;
}

static const struct mk_cfg_name defrag_policy_names[] = {
	{ "bsd", MK_DEFRAG_POLICY_BSD },
	{ "first", MK_DEFRAG_POLICY_FIRST },
	{ "last", MK_DEFRAG_POLICY_LAST },
	{ "reject", MK_DEFRAG_POLICY_REJECT },
	{ NULL, 0 },
};

static void defrag_cfg_defaults_any(void *base)
{
	mk_defrag_config_default(base);
}

#define C struct mk_defrag_config
static const struct mk_cfg_key defrag_keys[] = {
	/* a chunk index is 32 bits (NO_CHUNK reserved): memcap / CHUNK_SIZE < 2^32 */
	MK_CFG_SIZE("defrag.memcap", C, memcap, 64u << 10, 512ull << 30),
	MK_CFG_UINT("defrag.trackers", C, max_trackers, 1, 1u << 20),
	/* fragment indexes are 16 bits with NO_OWNER reserved */
	MK_CFG_UINT("defrag.max-frags", C, max_frags, 1, NO_OWNER - 1),
	MK_CFG_SECONDS_NS("defrag.timeout", C, timeout_ns, 1, 3600),
	MK_CFG_ENUM("defrag.policy", C, policy, defrag_policy_names),
};
#undef C

const struct mk_cfg_table mk_defrag_cfg_table = {
	.name = "defrag",
	.keys = defrag_keys,
	.nkeys = MK_ARRAY_SIZE(defrag_keys),
	.defaults = defrag_cfg_defaults_any,
	.check = defrag_cfg_check,
};
