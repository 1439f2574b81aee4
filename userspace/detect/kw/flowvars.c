// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flow variables: flowbits (set, unset, toggle, isset, isnotset, noalert)
 * and flowint (=, +, - and the comparisons ==, !=, <, >, <=, >=, isset,
 * notset). Names map to ids that stay the same across a reload (the engine
 * builder copies the previous engine's names), so a live flow keeps its
 * bits. Setting flowbits and flowint (=, +, -) happens after the whole rule
 * matched (Suricata's post-match), so a comparison in the same rule sees
 * the value from before.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

#define FB_NAMES_MAX 16

enum { FB_SET, FB_UNSET, FB_TOGGLE, FB_ISSET, FB_ISNOTSET };

struct flowbits {
	uint8_t op;
	uint8_t any; /* '|': any of the names; else all */
	uint8_t n;
	uint32_t ids[FB_NAMES_MAX];
};

static int setup_flowbits(struct mk_rule_build *rb, const char *value)
{
	static const char *const ops[] = { "set", "unset", "toggle", "isset", "isnotset" };
	char *v = strdup(value), *comma, *name, *p;
	struct flowbits *fb = NULL;
	unsigned int i;
	int or = 0, and = 0;

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	comma = strchr(v, ',');
	if (comma)
		*comma = '\0';
	p = mk_strtrim(v);
	if (!strcmp(p, "noalert")) {
		free(v);
		if (comma)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "noalert takes no name");
		rb->r->flags |= MK_RF_NOALERT;
		return 0;
	}
	for (i = 0; i < MK_ARRAY_SIZE(ops); i++)
		if (!strcmp(p, ops[i]))
			break;
	if (i == MK_ARRAY_SIZE(ops)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.20s' is not set, unset, toggle, isset, isnotset or noalert", p);
		goto err;
	}
	if (!comma) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%s' needs a name", ops[i]);
		goto err;
	}
	fb = calloc(1, sizeof(*fb));
	if (!fb) {
		mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
		goto err;
	}
	fb->op = (uint8_t)i;
	name = mk_strtrim(comma + 1);
	or = !!strchr(name, '|');
	and = !!strchr(name, '&');
	if (or &&and) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'|' and '&' cannot be mixed");
		goto err;
	}
	if (or &&fb->op != FB_ISSET && fb->op != FB_ISNOTSET) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'|' only with isset or isnotset");
		goto err;
	}
	fb->any = (uint8_t) or ;
	for (p = strtok(name, "|&"); p; p = strtok(NULL, "|&")) {
		char *nm = mk_strtrim(p);
		char *e;

		if (!*nm) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "empty flowbit name");
			goto err;
		}
		for (e = nm; *e; e++)
			if (*e == ' ' || *e == ',' || *e == '"') {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s' is not a flowbit name", nm);
				goto err;
			}
		if (fb->n == FB_NAMES_MAX) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "more than %d names", FB_NAMES_MAX);
			goto err;
		}
		if (mk_varnames_id(&rb->env->flowbits, nm, &fb->ids[fb->n++])) {
			mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
			goto err;
		}
	}
	free(v);
	if (fb->op <= FB_TOGGLE) {
		rb->r->flags |= MK_RF_FLOWVAR_SET;
		return mk_rule_add_sm(rb, MK_LIST_POST, &mk_kw_flowbits, fb);
	}
	rb->r->flags |= MK_RF_FLOWVAR_GET;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_flowbits, fb);
err:
	free(v);
	free(fb);
	return -1;
}

bool mk_flowbit_isset(const struct mk_detect_flow *fs, uint32_t id)
{
	return fs && id / 32 < fs->nbits && (fs->bits[id / 32] >> (id % 32) & 1);
}

int mk_flowbit_set(struct mk_detect_flow *fs, uint32_t id, int op)
{
	uint32_t w = id / 32, bit = 1u << (id % 32);

	if (w >= fs->nbits) {
		uint32_t n = w + 1;
		uint32_t *b;

		if (op == FB_UNSET)
			return 0;
		b = realloc(fs->bits, n * sizeof(*b));
		if (!b)
			return -1;
		memset(b + fs->nbits, 0, (n - fs->nbits) * sizeof(*b));
		fs->bits = b;
		fs->nbits = n;
	}
	if (op == FB_SET)
		fs->bits[w] |= bit;
	else if (op == FB_UNSET)
		fs->bits[w] &= ~bit;
	else
		fs->bits[w] ^= bit;
	return 0;
}

static int match_flowbits(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct flowbits *fb = sm->ctx;
	struct mk_detect_flow *fs;
	unsigned int i, set = 0;

	if (fb->op <= FB_TOGGLE) {
		/* post-match action */
		fs = mk_detect_flow_state(mc);
		if (!fs)
			return 0;
		for (i = 0; i < fb->n; i++)
			mk_flowbit_set(fs, fb->ids[i], fb->op);
		return 1;
	}
	fs = mc->flow ? mc->flow->detect : NULL;
	if (!mc->flow)
		return 0;
	for (i = 0; i < fb->n; i++)
		set += mk_flowbit_isset(fs, fb->ids[i]);
	if (fb->op == FB_ISSET)
		return fb->any ? set > 0 : set == fb->n;
	/* isnotset: any of them not set with '|', none of them set otherwise */
	return fb->any ? set < fb->n : set == 0;
}

/*
 * The flowbits @r sets or toggles (@fn's checks 0) and those it needs set
 * (isset of one name or of all of them: checks 1), for the load check of
 * flowbits that no rule sets (engine/refusals.c).
 */
void mk_flowbits_of_rule(const struct mk_rule *r, void (*fn)(uint32_t id, int checks, void *arg),
			 void *arg)
{
	const struct mk_sm *lists[2] = { r->match, r->post };
	uint32_t lens[2] = { r->nmatch, r->npost }, l, i, k;

	for (l = 0; l < 2; l++)
		for (i = 0; i < lens[l]; i++) {
			const struct flowbits *fb = lists[l][i].ctx;

			if (lists[l][i].kw != &mk_kw_flowbits)
				continue;
			if (fb->op == FB_SET || fb->op == FB_TOGGLE)
				for (k = 0; k < fb->n; k++)
					fn(fb->ids[k], 0, arg);
			else if (fb->op == FB_ISSET && (!fb->any || fb->n == 1))
				for (k = 0; k < fb->n; k++)
					fn(fb->ids[k], 1, arg);
		}
}

/* ---- flowint ------------------------------------------------------------------- */

enum { FI_ASSIGN, FI_ADD, FI_SUB, FI_EQ, FI_NE, FI_LT, FI_GT, FI_LE, FI_GE, FI_ISSET, FI_NOTSET };

struct flowint {
	uint32_t id;
	uint8_t op;
	uint8_t value_is_var;
	uint32_t value; /* number, or the id of another flowint */
};

/* A flowint name, as Suricata's: a letter, then letters, digits, '_', '.', '/'. */
static bool flowint_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '/'))
			return false;
	return true;
}

static int setup_flowint(struct mk_rule_build *rb, const char *value)
{
	/* longest first: the operator may be written without its ',' ("cnt,+1") */
	static const struct {
		const char *s;
		uint8_t op;
	} ops[] = {
		{ "isnotset", FI_NOTSET }, { "notset", FI_NOTSET }, { "isset", FI_ISSET },
		{ "==", FI_EQ },	   { "!=", FI_NE },	    { "<=", FI_LE },
		{ ">=", FI_GE },	   { "=", FI_ASSIGN },	    { "+", FI_ADD },
		{ "-", FI_SUB },	   { "<", FI_LT },	    { ">", FI_GT },
	};
	char *v = strdup(value), *args[4], *tok, *save = NULL, *val = NULL;
	struct flowint *fi = calloc(1, sizeof(*fi));
	unsigned int n = 0, i;
	size_t ol;

	if (!v || !fi)
		goto nomem;
	for (tok = strtok_r(v, ",", &save); tok && n < 4; tok = strtok_r(NULL, ",", &save))
		args[n++] = mk_strtrim(tok);
	if (n < 2 || n > 3 || tok) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'name, operator[, value]'");
		goto err;
	}
	for (i = 0; i < MK_ARRAY_SIZE(ops); i++)
		if (!strncmp(args[1], ops[i].s, strlen(ops[i].s)))
			break;
	if (i == MK_ARRAY_SIZE(ops)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown operator '%.10s'", args[1]);
		goto err;
	}
	fi->op = ops[i].op;
	ol = strlen(ops[i].s);
	if (args[1][ol]) {
		/* "+1": the value follows the operator; a word operator stands alone */
		if (n == 3 || fi->op == FI_ISSET || fi->op == FI_NOTSET) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown operator '%.10s'", args[1]);
			goto err;
		}
		val = mk_strtrim(args[1] + ol);
	} else if (n == 3) {
		val = args[2];
	}
	if ((fi->op == FI_ISSET || fi->op == FI_NOTSET) != !val) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "isset and notset take no value, '%s' needs one", ops[i].s);
		goto err;
	}
	if (!flowint_name_ok(args[0])) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.40s' is not a flowint name (a letter, then letters, digits, "
			     "'_', '.', '/')",
			     args[0]);
		goto err;
	}
	if (mk_varnames_id(&rb->env->flowints, args[0], &fi->id))
		goto nomem;
	if (val) {
		if (*val >= '0' && *val <= '9') {
			if (mk_parse_u32(val, &fi->value)) {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s' is not a number 0-4294967295", val);
				goto err;
			}
		} else if (flowint_name_ok(val)) {
			if (mk_varnames_id(&rb->env->flowints, val, &fi->value))
				goto nomem;
			fi->value_is_var = 1;
		} else {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "'%.40s' is not a number nor a flowint name", val);
			goto err;
		}
	}
	free(v);
	/* as Suricata: =, + and - act after the whole rule matched (post-match) */
	if (fi->op <= FI_SUB) {
		rb->r->flags |= MK_RF_FLOWVAR_SET;
		return mk_rule_add_sm(rb, MK_LIST_POST, &mk_kw_flowint, fi);
	}
	rb->r->flags |= MK_RF_FLOWVAR_GET;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_flowint, fi);
nomem:
	mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
err:
	free(v);
	free(fi);
	return -1;
}

struct mk_flowint *mk_flowint_get(struct mk_detect_flow *fs, uint32_t id, int create)
{
	uint32_t i;

	if (!fs)
		return NULL;
	for (i = 0; i < fs->nints; i++)
		if (fs->ints[i].id == id)
			return &fs->ints[i];
	if (!create)
		return NULL;
	if (fs->nints == fs->capints) {
		uint32_t cap = fs->capints ? fs->capints * 2 : 4;
		struct mk_flowint *n = realloc(fs->ints, cap * sizeof(*n));

		if (!n)
			return NULL;
		fs->ints = n;
		fs->capints = cap;
	}
	fs->ints[fs->nints].id = id;
	fs->ints[fs->nints].value = 0;
	return &fs->ints[fs->nints++];
}

/*
 * As Suricata's: another flowint that is not set counts as 0; '+' on a
 * variable that is not set sets it, '-' leaves it unset; the comparisons
 * need the variable set. Values are unsigned 32-bit and wrap around.
 */
static int match_flowint(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct flowint *fi = sm->ctx;
	struct mk_detect_flow *fs;
	struct mk_flowint *var, *other;
	uint32_t val = fi->value;

	if (!mc->flow)
		return 0;
	if (fi->op <= FI_SUB) {
		/* post-match action */
		fs = mk_detect_flow_state(mc);
		if (fi->value_is_var) {
			other = mk_flowint_get(fs, fi->value, 0);
			val = other ? other->value : 0;
		}
		var = mk_flowint_get(fs, fi->id, fi->op != FI_SUB);
		if (!var)
			return 1;
		if (fi->op == FI_ASSIGN)
			var->value = val;
		else if (fi->op == FI_ADD)
			var->value += val;
		else
			var->value -= val;
		return 1;
	}
	fs = mc->flow->detect;
	var = mk_flowint_get(fs, fi->id, 0);
	if (fi->op == FI_ISSET)
		return var != NULL;
	if (fi->op == FI_NOTSET)
		return var == NULL;
	if (!var)
		return 0;
	if (fi->value_is_var) {
		other = mk_flowint_get(fs, fi->value, 0);
		val = other ? other->value : 0;
	}
	switch (fi->op) {
	case FI_EQ:
		return var->value == val;
	case FI_NE:
		return var->value != val;
	case FI_LT:
		return var->value < val;
	case FI_GT:
		return var->value > val;
	case FI_LE:
		return var->value <= val;
	case FI_GE:
		return var->value >= val;
	}
	return 0;
}

MK_KW_DEFINE(flowbits, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_flowbits, match_flowbits,
	     "set|unset|toggle|isset|isnotset,name (a|b: any, a&b: all), or noalert");

MK_KW_DEFINE(flowint, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_flowint, match_flowint,
	     "name, =|+|-|==|!=|<|>|<=|>=, value (a number or another flowint), or name, "
	     "isset|notset|isnotset");

MK_KW_FAMILY_TABLE(flowvars, MK_KW_FAMILY_FLOWVARS);

/* ---- xbits ---------------------------------------------------------------------- */

/*
 * xbits: bits of a host or a host pair (Suricata's track ip_src, ip_dst,
 * ip_pair), with an expiry in packet time, seen by every flow and worker:
 * one table for the process, under a lock (xbits are set by few rules, so
 * rarely), bounded (a full table refuses new bits, counted in
 * mk_xbits_refused). Names share the flowbits' id space, prefixed.
 */
#define XB_SLOTS 65536u /* a power of two */
#define XB_PROBE 32u

enum { XB_SRC, XB_DST, XB_PAIR };

struct xbits {
	uint8_t op; /* FB_* */
	uint8_t track;
	uint32_t id;
	uint64_t expire_us; /* 0: never (Suricata's default is 30 s: set by the parser) */
};

struct xb_slot {
	uint32_t id;
	uint8_t used, family;
	uint32_t a[4], b[4]; /* the host, or the pair (lower address first) */
	uint64_t until_us;   /* expired once packet time passes it */
};

static pthread_mutex_t xb_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xb_slot *xb_table;

static int setup_xbits(struct mk_rule_build *rb, const char *value)
{
	static const char *const ops[] = { "set", "unset", "toggle", "isset", "isnotset" };
	char *v = strdup(value), *args[4], *tok, *save = NULL, name[96];
	struct xbits *xb = calloc(1, sizeof(*xb));
	unsigned int n = 0, i;

	if (!v || !xb) {
		free(v);
		free(xb);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	for (tok = strtok_r(v, ",", &save); tok && n < 4; tok = strtok_r(NULL, ",", &save))
		args[n++] = mk_strtrim(tok);
	if (n < 3 || tok) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "expected op, name, track ip_src|ip_dst|ip_pair[, expire N]");
		goto err;
	}
	for (i = 0; i < MK_ARRAY_SIZE(ops) && strcmp(args[0], ops[i]); i++)
		;
	if (i == MK_ARRAY_SIZE(ops)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.20s' is not set, unset, toggle, isset or isnotset", args[0]);
		goto err;
	}
	xb->op = (uint8_t)i;
	if (!*args[1] || strpbrk(args[1], " \"|&")) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not an xbit name", args[1]);
		goto err;
	}
	if (!strcmp(args[2], "track ip_src"))
		xb->track = XB_SRC;
	else if (!strcmp(args[2], "track ip_dst"))
		xb->track = XB_DST;
	else if (!strcmp(args[2], "track ip_pair"))
		xb->track = XB_PAIR;
	else {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.30s': expected track ip_src, ip_dst or ip_pair", args[2]);
		goto err;
	}
	xb->expire_us = 30ull * 1000000; /* Suricata's default */
	if (n == 4) {
		char *end;
		unsigned long s;

		if (strncmp(args[3], "expire ", 7) || (s = strtoul(args[3] + 7, &end, 10)) == 0 ||
		    *end || s > 86400 * 365) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "'%.30s': expected expire SECONDS (1 or more)", args[3]);
			goto err;
		}
		xb->expire_us = (uint64_t)s * 1000000;
	}
	snprintf(name, sizeof(name), "xbits:%s", args[1]);
	if (mk_varnames_id(&rb->env->flowbits, name, &xb->id)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
		goto err;
	}
	free(v);
	if (xb->op <= FB_TOGGLE) {
		rb->r->flags |= MK_RF_FLOWVAR_SET;
		return mk_rule_add_sm(rb, MK_LIST_POST, &mk_kw_xbits, xb);
	}
	rb->r->flags |= MK_RF_FLOWVAR_GET;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_xbits, xb);
err:
	free(v);
	free(xb);
	return -1;
}

/* The packet's source or destination (or both, ordered) for @track, from its flow. */
static int xb_key(const struct mk_match_ctx *mc, uint8_t track, struct xb_slot *k)
{
	const struct mk_flow *f = mc->flow;
	const uint32_t *cli, *srv, *src, *dst;

	if (!f)
		return -1;
	cli = f->client_hi ? f->key.addr_hi : f->key.addr_lo;
	srv = f->client_hi ? f->key.addr_lo : f->key.addr_hi;
	src = mc->to_client ? srv : cli;
	dst = mc->to_client ? cli : srv;
	memset(k, 0, sizeof(*k));
	k->family = f->key.family;
	if (track == XB_SRC) {
		memcpy(k->a, src, sizeof(k->a));
	} else if (track == XB_DST) {
		memcpy(k->a, dst, sizeof(k->a));
	} else {
		int lo = memcmp(src, dst, sizeof(k->a)) < 0;

		memcpy(k->a, lo ? src : dst, sizeof(k->a));
		memcpy(k->b, lo ? dst : src, sizeof(k->b));
	}
	return 0;
}

static uint32_t xb_hash(const struct xb_slot *k, uint32_t id)
{
	uint32_t h = id * 0x9e3779b1u ^ k->family;
	unsigned int i;

	for (i = 0; i < 4; i++)
		h = (h ^ k->a[i]) * 0x85ebca6bu ^ (h ^ k->b[i]) * 0xc2b2ae35u;
	return h ^ h >> 16;
}

static int xb_same(const struct xb_slot *s, const struct xb_slot *k, uint32_t id)
{
	return s->used && s->id == id && s->family == k->family &&
	       !memcmp(s->a, k->a, sizeof(s->a)) && !memcmp(s->b, k->b, sizeof(s->b));
}

static int match_xbits(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct xbits *xb = sm->ctx;
	uint64_t now = mc->t->pkt.ts_us;
	struct xb_slot k, *s, *free_slot = NULL;
	uint32_t h, i;
	int set = 0;

	if (xb_key(mc, xb->track, &k))
		return xb->op <= FB_TOGGLE ? 1 : xb->op == FB_ISNOTSET;
	pthread_mutex_lock(&xb_lock);
	if (!xb_table)
		xb_table = calloc(XB_SLOTS, sizeof(*xb_table));
	if (!xb_table) {
		pthread_mutex_unlock(&xb_lock);
		return xb->op == FB_ISNOTSET;
	}
	h = xb_hash(&k, xb->id);
	for (i = 0, s = NULL; i < XB_PROBE; i++) {
		struct xb_slot *c = &xb_table[(h + i) & (XB_SLOTS - 1)];

		if (c->used && c->until_us && c->until_us < now)
			c->used = 0; /* expired */
		if (xb_same(c, &k, xb->id)) {
			s = c;
			break;
		}
		if (!c->used && !free_slot)
			free_slot = c;
	}
	set = s != NULL;
	if (xb->op == FB_UNSET || (xb->op == FB_TOGGLE && s)) {
		if (s)
			s->used = 0;
	} else if (xb->op == FB_SET || xb->op == FB_TOGGLE) {
		if (!s)
			s = free_slot;
		if (s) {
			*s = k;
			s->used = 1;
			s->id = xb->id;
			s->until_us = now + xb->expire_us;
		} else {
			mc->t->cnt[MK_DETECT_CNT_XBITS_FULL]++;
		}
	}
	pthread_mutex_unlock(&xb_lock);
	if (xb->op <= FB_TOGGLE)
		return 1;
	return xb->op == FB_ISSET ? set : !set;
}

MK_KW_DEFINE(xbits, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_xbits, match_xbits,
	     "set|unset|toggle|isset|isnotset, name, track ip_src|ip_dst|ip_pair[, expire N]");
