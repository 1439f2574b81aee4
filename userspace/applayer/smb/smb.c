// SPDX-License-Identifier: GPL-2.0-only
/* SMB recognition (smb.h). */
#include <string.h>
#include "smb.h"

int mk_smb_probe(const uint8_t *p, uint32_t len)
{
	/* the smallest SMB header (SMB1) is 32 bytes */
	uint32_t nb_len;

	if (len < 1)
		return -1;
	if (p[0] != 0)
		return 0;
	if (len < 4)
		return -1;
	nb_len = (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (nb_len < 32)
		return 0;
	if (len < 5)
		return -1;
	if (p[4] != 0xff && p[4] != 0xfe && p[4] != 0xfd)
		return 0;
	if (len < 8)
		return -1;
	return !memcmp(p + 5, "SMB", 3);
}
