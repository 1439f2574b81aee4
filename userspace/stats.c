// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the subcommand lands: fails loudly, never pretends. */
#include "ctl.h"
#include "log.h"

int ctl_stats(int argc, char **argv)
{
	(void)argc;
	mk_err("%s: not built yet", argv[0]);
	return 1;
}
