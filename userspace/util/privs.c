// SPDX-License-Identifier: GPL-2.0-only
/* Dropping the live sensor's capabilities after setup (privs.h), with libcap-ng. */
#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "log.h"
#include "privs.h"

/* What the run needs after setup; docs/security.md says why each. */
static const unsigned int kept[] = { CAP_NET_ADMIN, CAP_SYS_ADMIN };

int mk_privs_drop(void)
{
	unsigned int i;
	int rc;

	capng_get_caps_process();
	capng_clear(CAPNG_SELECT_ALL);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, kept[i]))
			return -EINVAL;
	/* caps, bounding set and (libcap-ng 0.8) ambient set, this thread and its future ones */
	rc = capng_apply(CAPNG_SELECT_ALL);
	if (rc) {
		mk_warn("cannot drop capabilities (libcap-ng error %d): running with those it had",
			rc);
		return -EPERM;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		mk_warn("no_new_privs: %s", strerror(errno));
	mk_info("capabilities after setup: %s", mk_privs_describe());
	return 0;
}

const char *mk_privs_describe(void)
{
	static char buf[256];
	char *s;

	capng_get_caps_process();
	s = capng_print_caps_text(CAPNG_PRINT_BUFFER, CAPNG_EFFECTIVE);
	snprintf(buf, sizeof(buf), "%s", s && *s ? s : "none");
	free(s);
	return buf;
}
